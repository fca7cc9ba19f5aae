/// The command-line options a program gives its APNs settings under, so that what APNs refuses
/// is explained with the options the reader can actually change: `richpush send` takes `--key`,
/// `--key-id`, `--team-id`, `--topic`, `--sandbox`; `richpush serve` the same prefixed `--apns-`.
public struct APNsOptionNames: Sendable, Equatable {
    /// The auth key file (`.p8`).
    public var key: String
    /// The key's id.
    public var keyID: String
    /// The team id.
    public var teamID: String
    /// The topic (the app's bundle id).
    public var topic: String
    /// The flag that selects the sandbox environment.
    public var sandbox: String
    /// Another APNs-compatible endpoint.
    public var url: String

    /// Names of one program's options.
    ///
    /// - Parameters:
    ///   - key: the auth key option.
    ///   - keyID: the key id option.
    ///   - teamID: the team id option.
    ///   - topic: the topic option.
    ///   - sandbox: the sandbox flag.
    ///   - url: the endpoint option.
    public init(key: String, keyID: String, teamID: String, topic: String, sandbox: String, url: String) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.sandbox = sandbox
        self.url = url
    }

    /// `richpush send`'s options (the default).
    public static let send = APNsOptionNames(
        key: "--key", keyID: "--key-id", teamID: "--team-id", topic: "--topic", sandbox: "--sandbox", url: "--apns-url")
    /// `richpush serve`'s options (`POST /v1/pushes`).
    public static let serve = APNsOptionNames(
        key: "--apns-key", keyID: "--apns-key-id", teamID: "--apns-team-id", topic: "--apns-topic", sandbox: "--apns-sandbox", url: "--apns-url")
}
