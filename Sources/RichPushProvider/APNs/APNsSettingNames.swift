/// What the program calls each of its APNs settings, so that what APNs refuses is explained with
/// the settings the reader can actually change. The library names no command-line option: a
/// program passes its own names (`richpush send`'s and `richpush serve`'s are in the CLI's
/// `ProviderSettingNames`); the default describes each setting in words.
public struct APNsSettingNames: Sendable, Equatable {
    /// The auth key file (`.p8`).
    public var key: String
    /// The key's id.
    public var keyID: String
    /// The team id.
    public var teamID: String
    /// The topic (the app's bundle id).
    public var topic: String
    /// The switch that selects the sandbox environment.
    public var sandbox: String
    /// Another APNs-compatible endpoint.
    public var url: String

    /// Names of one program's settings.
    ///
    /// - Parameters:
    ///   - key: the auth key setting.
    ///   - keyID: the key id setting.
    ///   - teamID: the team id setting.
    ///   - topic: the topic setting.
    ///   - sandbox: the sandbox switch.
    ///   - url: the endpoint setting.
    public init(key: String, keyID: String, teamID: String, topic: String, sandbox: String, url: String) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.sandbox = sandbox
        self.url = url
    }

    /// Each setting described in words (the default of a client made without names).
    public static let descriptive = APNsSettingNames(
        key: "the auth key (.p8)", keyID: "the key id", teamID: "the team id", topic: "the topic", sandbox: "the sandbox setting",
        url: "the endpoint URL")
}
