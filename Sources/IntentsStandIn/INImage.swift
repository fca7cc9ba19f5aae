#if !canImport(Intents)
import Foundation

/// Stand-in for Apple's `INImage`: an image for an intent, from data.
///
/// Only `init(imageData:)` of Apple's initializers: an `INImage` made from a file URL in the
/// extension's container is never drawn (the system reads it in another process), so code built
/// here cannot make one.
open class INImage: NSObject, NSCopying {
    /// The image bytes, as given (for the Linux host, which checks what iOS would draw).
    package let imageData: Data

    init(data: Data) {
        imageData = data
        super.init()
    }

    /// An image from its encoded bytes (PNG, JPEG, …).
    /// - Parameter imageData: the encoded image.
    public convenience init(imageData: Data) {
        self.init(data: imageData)
    }

    /// Returns the receiver: an image is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}
#endif
