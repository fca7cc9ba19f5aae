/// The requests of the broadcast API (Apple, "Sending channel management requests to APNs",
/// "Sending broadcast push notification requests to APNs").
public enum APNsChannelOperation: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `POST /1/apps/<bundle id>/channels` on the management host: 201 with `apns-channel-id`.
    case create
    /// `GET /1/apps/<bundle id>/channels` with `apns-channel-id`: 200 with the policy.
    case read
    /// `DELETE /1/apps/<bundle id>/channels` with `apns-channel-id`: 204.
    case delete
    /// `GET /1/apps/<bundle id>/all-channels`: 200 with `{"channels": [...]}`.
    case list
    /// `POST /4/broadcasts/apps/<bundle id>` on the broadcast host with `apns-channel-id`: 200.
    case broadcast

    /// The HTTP method.
    public var method: String {
        switch self {
        case .create, .broadcast: return "POST"
        case .read, .list: return "GET"
        case .delete: return "DELETE"
        }
    }

    /// The status of success (Apple).
    public var successStatus: Int {
        switch self {
        case .create: return 201
        case .delete: return 204
        case .read, .list, .broadcast: return 200
        }
    }

    /// The path for an app.
    /// - Parameter bundleID: the app's bundle id (no push-type suffix).
    /// - Returns: the path.
    public func path(bundleID: String) -> String {
        switch self {
        case .create, .read, .delete: return "/1/apps/\(bundleID)/channels"
        case .list: return "/1/apps/\(bundleID)/all-channels"
        case .broadcast: return "/4/broadcasts/apps/\(bundleID)"
        }
    }

    /// In words, for messages ("creating a channel").
    public var description: String {
        switch self {
        case .create: return "creating a channel"
        case .read: return "reading a channel"
        case .delete: return "deleting a channel"
        case .list: return "listing the channels"
        case .broadcast: return "broadcasting"
        }
    }
}
