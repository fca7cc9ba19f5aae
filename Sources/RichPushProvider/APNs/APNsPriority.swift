/// The `apns-priority` header: 10 (immediately), 5 (power-considerate), 1 (lowest).
public struct APNsPriority: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }

    /// Deliver now (alerts). Apple: not allowed for `background` pushes.
    public static let immediately = APNsPriority(rawValue: 10)
    /// Deliver when power allows (required for `background` pushes).
    public static let considerate = APNsPriority(rawValue: 5)
    /// Lowest; may be held back.
    public static let low = APNsPriority(rawValue: 1)
}
