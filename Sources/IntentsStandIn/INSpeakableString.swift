#if !canImport(Intents)
import Foundation

/// Stand-in for Apple's `INSpeakableString`: a name Siri can say (a group's name).
open class INSpeakableString: NSObject, NSCopying {
    /// The phrase (for the Linux host).
    package let phrase: String

    /// A speakable string.
    /// - Parameters:
    ///   - vocabularyIdentifier: the app's identifier of the phrase.
    ///   - spokenPhrase: the phrase.
    ///   - pronunciationHint: how to say it, if it is not obvious.
    public init(vocabularyIdentifier: String, spokenPhrase: String, pronunciationHint: String?) {
        phrase = spokenPhrase
        super.init()
    }

    /// A speakable string from its phrase alone.
    /// - Parameter spokenPhrase: the phrase.
    public convenience init(spokenPhrase: String) {
        self.init(vocabularyIdentifier: spokenPhrase, spokenPhrase: spokenPhrase, pronunciationHint: nil)
    }

    /// Returns the receiver: it is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}
#endif
