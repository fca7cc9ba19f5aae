/// `aps.interruption-level`: how a notification may break through Focus (iOS 15+).
///
/// A struct over a string so a level Apple adds later can still be sent.
public struct RichPushInterruptionLevel: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Delivered quietly, no sound or wake.
    public static let passive = RichPushInterruptionLevel(rawValue: "passive")
    /// The default.
    public static let active = RichPushInterruptionLevel(rawValue: "active")
    /// Breaks through Focus (needs the Time Sensitive capability).
    public static let timeSensitive = RichPushInterruptionLevel(rawValue: "time-sensitive")
    /// Breaks through mute and Focus (needs Apple's critical-alert entitlement).
    public static let critical = RichPushInterruptionLevel(rawValue: "critical")

    /// The levels Apple documents.
    public static let documented: [RichPushInterruptionLevel] = [.passive, .active, .timeSensitive, .critical]
}
