/// What the program that runs the server calls the settings of `POST /v1/pushes`, for the 502 and
/// 503 answers that say which setting to change. Those answers are wire format: the server takes
/// the names from its configuration (`ServerConfiguration.pushSettingNames`, which `richpush
/// serve` fills with its options) instead of naming options itself; the default describes each
/// setting in words.
public struct PushSettingNames: Sendable, Equatable {
    /// The APNs auth key file (`.p8`), key id, team id and topic.
    public var apnsKey: String, apnsKeyID: String, apnsTeamID: String, apnsTopic: String
    /// Apple's sandbox switch, another endpoint, extra trust roots.
    public var apnsSandbox: String, apnsURL: String, apnsCAFile: String
    /// The FCM service account file.
    public var fcmServiceAccount: String

    /// Names of one program's settings.
    ///
    /// - Parameters:
    ///   - apnsKey: the auth key setting.
    ///   - apnsKeyID: the key id setting.
    ///   - apnsTeamID: the team id setting.
    ///   - apnsTopic: the topic setting.
    ///   - apnsSandbox: the sandbox switch.
    ///   - apnsURL: the endpoint setting.
    ///   - apnsCAFile: the CA file setting.
    ///   - fcmServiceAccount: the FCM service account setting.
    public init(
        apnsKey: String, apnsKeyID: String, apnsTeamID: String, apnsTopic: String, apnsSandbox: String, apnsURL: String, apnsCAFile: String,
        fcmServiceAccount: String
    ) {
        self.apnsKey = apnsKey
        self.apnsKeyID = apnsKeyID
        self.apnsTeamID = apnsTeamID
        self.apnsTopic = apnsTopic
        self.apnsSandbox = apnsSandbox
        self.apnsURL = apnsURL
        self.apnsCAFile = apnsCAFile
        self.fcmServiceAccount = fcmServiceAccount
    }

    /// Each setting described in words.
    public static let descriptive = PushSettingNames(
        apnsKey: "the APNs key setting", apnsKeyID: "the APNs key id setting", apnsTeamID: "the APNs team id setting",
        apnsTopic: "APNs topic setting", apnsSandbox: "the APNs sandbox setting", apnsURL: "the APNs endpoint setting",
        apnsCAFile: "the APNs CA file setting", fcmServiceAccount: "the FCM service account setting")

    /// The APNs settings that are optional, for the 503: "--apns-sandbox, --apns-url URL, --apns-ca-file PEM".
    var apnsOptional: String { "\(apnsSandbox), \(apnsURL) URL, \(apnsCAFile) PEM" }

    /// Every APNs setting `POST /v1/pushes` needs, each with its environment variable, for the 503
    /// when none was given.
    public var apnsRequired: [String] {
        [
            "\(apnsKey) FILE (or RICHPUSH_APNS_KEY)", "\(apnsKeyID) KEYID (or RICHPUSH_APNS_KEY_ID)",
            "\(apnsTeamID) TEAMID (or RICHPUSH_APNS_TEAM_ID)", "\(apnsTopic) BUNDLE_ID (or RICHPUSH_APNS_TOPIC)",
        ]
    }
}
