/// A broadcast channel's `message-storage-policy`, fixed when the channel is created.
///
/// Apple, "Sending channel management requests to APNs": `0` No Message Stored (for frequent
/// updates such as scores: "allows a higher publishing budget"; a broadcast on it must carry
/// `apns-expiration: 0`, else `BadExpirationDate`), `1` Most Recent Message Stored (infrequent
/// updates: the latest message waits up to 8 hours for an offline device, or until its
/// `apns-expiration`).
public enum APNsMessageStoragePolicy: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `0`: nothing is kept for a device that is offline; `apns-expiration` must be 0.
    case noMessageStored = 0
    /// `1`: the most recent message is kept for at most 8 hours (Apple).
    case mostRecentMessageStored = 1

    /// Apple: how long a Most Recent Message Stored channel keeps its message, in seconds (8 hours).
    public static let maximumStorageSeconds = 8 * 3600

    /// Apple's name for it: "No Message Stored" or "Most Recent Message Stored", with the number.
    public var description: String {
        switch self {
        case .noMessageStored: return "0 (No Message Stored)"
        case .mostRecentMessageStored: return "1 (Most Recent Message Stored)"
        }
    }
}
