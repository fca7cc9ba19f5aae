/// Where broadcast requests go: the channel management host (its own host and port) and the
/// broadcast host (APNs' usual host).
///
/// Apple, "Sending channel management requests to APNs": development
/// `api-manage-broadcast.sandbox.push.apple.com:2195`, production
/// `api-manage-broadcast.push.apple.com:2196`. "Sending broadcast push notification requests to
/// APNs": `api.sandbox.push.apple.com:443` and `api.push.apple.com:443` (that page's sample
/// request shows a host `api-broadcast.…push.apple.com`; its connection section names the ones
/// used here). Channels are per environment: a sandbox channel does not exist in production.
public struct APNsBroadcastEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// The channel management base URL (scheme, host, port), e.g. `https://api-manage-broadcast.push.apple.com:2196`.
    public let managementURL: String
    /// The broadcast base URL, e.g. `https://api.push.apple.com`.
    public let broadcastURL: String
    /// A short name for messages (`production`, `sandbox`, or the URLs).
    public let name: String

    /// Apple's production hosts (TestFlight and App Store builds).
    public static let production = APNsBroadcastEnvironment(
        managementURL: "https://api-manage-broadcast.push.apple.com:2196", broadcastURL: "https://api.push.apple.com", name: "production")
    /// Apple's sandbox hosts (builds run from Xcode).
    public static let sandbox = APNsBroadcastEnvironment(
        managementURL: "https://api-manage-broadcast.sandbox.push.apple.com:2195", broadcastURL: "https://api.sandbox.push.apple.com", name: "sandbox")

    /// Other APNs-compatible endpoints (a test server, a proxy).
    /// - Parameters:
    ///   - managementURL: the channel management base URL, e.g. `https://127.0.0.1:8444`.
    ///   - broadcastURL: the broadcast base URL, e.g. `https://127.0.0.1:8443`.
    /// - Returns: the environment.
    public static func custom(managementURL: String, broadcastURL: String) -> APNsBroadcastEnvironment {
        func trimmed(_ url: String) -> String {
            var url = url
            while url.hasSuffix("/") { url.removeLast() }
            return url
        }
        let management = trimmed(managementURL), broadcast = trimmed(broadcastURL)
        return APNsBroadcastEnvironment(managementURL: management, broadcastURL: broadcast, name: "channels \(management), broadcasts \(broadcast)")
    }

    /// The broadcast environment beside a device environment: production for production,
    /// sandbox for sandbox, `nil` for a custom one (its management host cannot be guessed).
    /// - Parameter environment: the device environment.
    /// - Returns: the broadcast environment, or `nil`.
    public static func matching(_ environment: APNsEnvironment) -> APNsBroadcastEnvironment? {
        if environment == .production { return .production }
        if environment == .sandbox { return .sandbox }
        return nil
    }

    public var description: String { name }
}
