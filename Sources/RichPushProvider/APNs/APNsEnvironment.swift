/// Which APNs to talk to: production, sandbox (development builds), or another compatible endpoint.
public struct APNsEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// The base URL, e.g. `https://api.push.apple.com`.
    public let baseURL: String
    /// A short name for messages (`production`, `sandbox`, or the URL).
    public let name: String

    /// Apple's production APNs: apps from TestFlight and the App Store.
    public static let production = APNsEnvironment(baseURL: "https://api.push.apple.com", name: "production")
    /// Apple's sandbox APNs: apps built and run from Xcode (development provisioning).
    public static let sandbox = APNsEnvironment(baseURL: "https://api.sandbox.push.apple.com", name: "sandbox")

    /// Another APNs-compatible endpoint (a proxy, a test server).
    /// - Parameter baseURL: scheme, host and port, e.g. `https://127.0.0.1:8443`.
    public static func custom(_ baseURL: String) -> APNsEnvironment {
        var url = baseURL
        while url.hasSuffix("/") { url.removeLast() }
        return APNsEnvironment(baseURL: url, name: url)
    }

    public var description: String { name }
}
