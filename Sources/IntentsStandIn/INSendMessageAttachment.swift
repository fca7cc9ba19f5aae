#if !canImport(Intents)
import Foundation

/// Stand-in for Apple's `INSendMessageAttachment`: a file sent with a message (RichPush sends
/// none: `attachments: nil`).
open class INSendMessageAttachment: NSObject {}
#endif
