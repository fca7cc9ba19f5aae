#if !canImport(Intents)
import Foundation

/// Stand-in for Apple's `INIntentResponse`: the base of every intent's response (an incoming
/// message's interaction has none).
open class INIntentResponse: NSObject {}
#endif
