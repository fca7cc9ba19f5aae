#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationSound`: the sound played with a notification.
open class UNNotificationSound: NSObject, NSCopying {
    /// The named file, or `nil` for the system's default sound.
    private let soundName: UNNotificationSoundName?

    init(soundName: UNNotificationSoundName?) {
        self.soundName = soundName
        super.init()
    }

    /// A sound from the app bundle or the app's `Library/Sounds` (`aps.sound` = a file name).
    /// - Parameter name: the sound file's name.
    public convenience init(named name: UNNotificationSoundName) {
        self.init(soundName: name)
    }

    /// The system's default sound (`aps.sound` = `"default"`).
    open class var `default`: UNNotificationSound { UNNotificationSound(soundName: nil) }

    /// The name as it appears in a payload: `default` or the file name (for the Linux host).
    package var payloadName: String { soundName?.rawValue ?? "default" }

    /// Returns the receiver: a sound is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Two sounds are equal when they name the same file (or are both the default).
    /// - Parameter object: the other object.
    /// - Returns: whether they are equal.
    open override func isEqual(_ object: Any?) -> Bool {
        (object as? UNNotificationSound)?.soundName == soundName
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int { soundName.hashValue }
}
#endif
