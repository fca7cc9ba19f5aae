#if !canImport(Intents)
/// Stand-in for the protocol of Apple's Intents overlay that gives every intent
/// `setImage(_:forParameterNamed:)` with a key path.
public protocol _INIntentSetImageKeyPath {}

/// Stand-in for Apple's `INIntentSetImageKeyPath` (every `INIntent` conforms).
public protocol INIntentSetImageKeyPath: _INIntentSetImageKeyPath {}

extension _INIntentSetImageKeyPath {
    /// Sets the image shown for one of the intent's parameters (a group's avatar for
    /// `speakableGroupName`, a person's for `sender`).
    /// - Parameters:
    ///   - image: the image, `nil` to remove it.
    ///   - parameterName: the parameter, as a key path.
    public func setImage<Value>(_ image: INImage?, forParameterNamed parameterName: KeyPath<Self, Value>) {
        (self as? INIntent)?.parameterImages[parameterName] = image
    }

    /// The image set for a parameter.
    /// - Parameter parameterName: the parameter, as a key path.
    /// - Returns: the image, or `nil`.
    public func image<Value>(forParameterNamed parameterName: KeyPath<Self, Value>) -> INImage? {
        (self as? INIntent)?.parameterImages[parameterName]
    }
}
#endif
