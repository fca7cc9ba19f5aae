/// The `aps.event` of an ActivityKit push notification: what it does to a Live Activity.
///
/// Apple, "Starting and updating Live Activities with ActivityKit push notifications": `start`
/// (iOS 17.2+, to a push-to-start token; never on a broadcast channel), `update`, `end`.
public enum LiveActivityEvent: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Starts a new Live Activity (to a push-to-start token): needs `attributes-type`,
    /// `attributes` and an `alert`.
    case start
    /// Updates a running Live Activity's dynamic data (`content-state`).
    case update
    /// Ends a Live Activity; the final `content-state` and an optional `dismissal-date` go with it.
    case end

    public var description: String { rawValue }
}
