import Foundation
import RichPushCore

/// A per-activity hourly budget of `apns-priority: 10` pushes: past it, a push goes out with
/// priority 5 instead, and says so.
///
/// Apple ("Determine the update frequency"): the system allows a budget of ActivityKit pushes
/// per hour; priority 10 (or no priority) counts against it and past it the system may throttle
/// the activity's updates; priority 5 does not count. Apple does not publish the number (it
/// depends on the device and on `NSSupportsLiveActivitiesFrequentUpdates`), so the limit here is
/// RichPush's setting: `defaultLimitPerHour` unless configured.
///
/// The window slides: a priority-10 push counts for one hour after it was sent.
public struct LiveActivityPriorityBudget: Sendable, Hashable, Codable {
    /// RichPush's default: 10 priority-10 pushes per activity per hour.
    public static let defaultLimitPerHour = 10
    /// The window a push counts in, in seconds (one hour).
    public static let window: TimeInterval = 3600

    /// What the budget decided for one push.
    public struct Decision: Sendable, Hashable {
        /// The priority to send with: the one asked for, or 5 when the budget is spent.
        public var priority: Int
        /// Whether 10 was asked for and 5 is sent.
        public var steppedDown: Bool
        /// Priority-10 pushes counted for the activity in the last hour, this one included when it is one.
        public var used: Int
        /// The limit in force.
        public var limit: Int

        /// A `priority_stepped_down` warning naming `apns-priority`, when stepped down.
        public var finding: RichPushLintFinding? {
            guard steppedDown else { return nil }
            return RichPushLintFinding(
                .warning, .prioritySteppedDown, at: "apns-priority",
                "sent with 5 instead of 10: the activity already had \(used) priority-10 pushes in the last hour (budget \(limit) per hour); Apple: priority 10 past the system's hourly budget may be throttled, priority 5 does not count"
            )
        }
    }

    /// Priority-10 pushes allowed per activity per hour.
    public var limitPerHour: Int
    /// When each activity's priority-10 pushes were sent (seconds since 1970), oldest first.
    public private(set) var sent: [String: [Double]] = [:]

    /// Makes a budget.
    /// - Parameter limitPerHour: priority-10 pushes allowed per activity per hour (≥ 0).
    public init(limitPerHour: Int = LiveActivityPriorityBudget.defaultLimitPerHour) {
        self.limitPerHour = max(0, limitPerHour)
    }

    /// Decides one push's priority and counts it.
    ///
    /// - Parameters:
    ///   - activity: the activity's id (the server's, a channel id, or any stable name).
    ///   - requested: the priority asked for (`nil`: none, which APNs takes as 10).
    ///   - now: when it is sent.
    /// - Returns: the decision: 10 while the activity's last hour holds fewer than
    ///   `limitPerHour` priority-10 pushes, else 5; 5 and 1 pass unchanged and are not counted.
    public mutating func admit(activity: String, requested: Int?, at now: Date = Date()) -> Decision {
        let stamp = now.timeIntervalSince1970
        var times = (sent[activity] ?? []).filter { stamp - $0 < Self.window }
        defer { sent[activity] = times.isEmpty ? nil : times }
        let asked = requested ?? 10
        guard asked == 10 else { return Decision(priority: asked, steppedDown: false, used: times.count, limit: limitPerHour) }
        guard times.count < limitPerHour else {
            return Decision(priority: 5, steppedDown: true, used: times.count, limit: limitPerHour)
        }
        times.append(stamp)
        return Decision(priority: 10, steppedDown: false, used: times.count, limit: limitPerHour)
    }

    /// Priority-10 pushes counted for an activity in the hour before `now`.
    /// - Parameters:
    ///   - activity: the activity's id.
    ///   - now: the current time.
    /// - Returns: the count.
    public func used(by activity: String, at now: Date = Date()) -> Int {
        (sent[activity] ?? []).filter { now.timeIntervalSince1970 - $0 < Self.window }.count
    }

    /// Reads a budget kept in a file (so that separate runs share it), or a fresh one when the
    /// file does not exist yet.
    ///
    /// - Parameters:
    ///   - url: the JSON file.
    ///   - limitPerHour: the limit in force (it replaces the file's).
    /// - Returns: the budget.
    /// - Throws: `RichPushError` `io` when the file cannot be read, `invalid_payload` when it is
    ///   not a budget file.
    public static func load(from url: URL, limitPerHour: Int) throws -> LiveActivityPriorityBudget {
        guard FileManager.default.fileExists(atPath: url.path) else { return LiveActivityPriorityBudget(limitPerHour: limitPerHour) }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw RichPushError(
                code: .io, message: "cannot read the budget file \(url.path): \(error.localizedDescription)", setting: "budget file", path: url.path)
        }
        do {
            var budget = try JSONDecoder().decode(LiveActivityPriorityBudget.self, from: data)
            budget.limitPerHour = max(0, limitPerHour)
            return budget
        } catch {
            throw RichPushError(
                code: .invalidPayload,
                message: "\(url.path) is not a RichPush budget file ({\"limitPerHour\": N, \"sent\": {activity: [seconds]}}); remove it to start afresh",
                setting: "budget file", path: url.path)
        }
    }

    /// Writes the budget to a file, atomically, keeping only the last hour.
    ///
    /// - Parameters:
    ///   - url: the JSON file.
    ///   - now: the current time.
    /// - Throws: `RichPushError` `io` when it cannot be written.
    public func save(to url: URL, at now: Date = Date()) throws {
        var kept = self
        kept.sent = sent.compactMapValues { times in
            let recent = times.filter { now.timeIntervalSince1970 - $0 < Self.window }
            return recent.isEmpty ? nil : recent
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try encoder.encode(kept).write(to: url, options: .atomic)
        } catch {
            throw RichPushError(
                code: .io, message: "cannot write the budget file \(url.path): \(error.localizedDescription)", setting: "budget file", path: url.path)
        }
    }
}
