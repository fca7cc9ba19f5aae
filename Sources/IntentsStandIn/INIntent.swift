#if !canImport(Intents)
import Foundation

/// Stand-in for Apple's `INIntent`: the base of every intent.
open class INIntent: NSObject, NSCopying, INIntentSetImageKeyPath {
    /// The images set per parameter (`setImage(_:forParameterNamed:)`); like Apple's, an intent
    /// is made and filled on one thread.
    var parameterImages: [AnyKeyPath: INImage] = [:]

    /// Makes an intent (the subclasses' initializers call it).
    public override init() {
        super.init()
    }

    /// Returns the receiver (the stand-in's intents are not changed after they are made).
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// The images set for parameters, by key path (for the Linux host).
    package var imagesByParameter: [AnyKeyPath: INImage] { parameterImages }
}
#endif
