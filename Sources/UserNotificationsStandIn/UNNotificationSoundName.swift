#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationSoundName`: the file name of a sound in the app bundle.
public struct UNNotificationSoundName: Hashable, Equatable, RawRepresentable, Sendable {
    /// The file name, e.g. `chime.caf`.
    public let rawValue: String

    /// Makes a sound name.
    /// - Parameter rawValue: the file name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Makes a sound name.
    /// - Parameter rawValue: the file name.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }
}
#endif
