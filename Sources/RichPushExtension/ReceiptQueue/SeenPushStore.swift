import Foundation

/// Push ids this installation has already reported, so a second extension run for the same push
/// (iOS may run it again; a provider may resend) sends no second receipt.
///
/// Kept in `seen-pushes.json` (push id → first-seen time) under `flock` on `seen-pushes.lock`;
/// entries older than `timeToLive` are dropped, and at most `maximumEntries` are kept (oldest
/// dropped first).
@_spi(RichPushInternal)
public struct SeenPushStore: Sendable {
    /// How long a push id is remembered: 7 days in seconds (APNs stores an undelivered
    /// notification for a limited time; a week is well past any redelivery).
    public static let defaultTimeToLive: Double = 7 * 24 * 60 * 60
    /// At most this many push ids are remembered (our bound: a few tens of KB).
    public static let maximumEntries = 1_000

    /// The shared directory.
    public let directory: URL
    /// Seconds a push id is remembered.
    public let timeToLive: Double

    /// Makes a store.
    /// - Parameters:
    ///   - directory: the App Group container (here `--state DIR`).
    ///   - timeToLive: seconds a push id is remembered (default 7 days).
    public init(directory: URL, timeToLive: Double = SeenPushStore.defaultTimeToLive) {
        self.directory = directory
        self.timeToLive = timeToLive
    }

    /// Records a push id, atomically across processes.
    ///
    /// - Parameters:
    ///   - pushID: the push id.
    ///   - now: the current time.
    /// - Returns: `true` the first time within the TTL, `false` when it was already seen.
    /// - Throws: `RichPushError` `io` when the store cannot be written.
    public func markSeen(_ pushID: String, now: Date = Date()) throws -> Bool {
        let file = directory.appendingPathComponent("seen-pushes.json")
        return try FileLock(url: directory.appendingPathComponent("seen-pushes.lock")).withLock {
            var seen: [String: Double] = [:]
            if let data = AtomicFile.read(file), let decoded = try? JSONDecoder().decode([String: Double].self, from: data) {
                seen = decoded
            }
            let t = now.timeIntervalSince1970
            seen = seen.filter { t - $0.value < timeToLive }
            if seen[pushID] != nil { return false }
            seen[pushID] = t
            if seen.count > Self.maximumEntries {
                for (old, _) in seen.sorted(by: { $0.value < $1.value }).prefix(seen.count - Self.maximumEntries) {
                    seen[old] = nil
                }
            }
            try AtomicFile.write(try JSONEncoder().encode(seen), to: file)
            return true
        }
    }
}
