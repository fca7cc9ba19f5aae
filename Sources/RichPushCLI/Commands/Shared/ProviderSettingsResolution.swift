import Foundation
import RichPushProvider
import RichPushServer

/// The one resolution of the APNs and FCM settings, for `richpush send` and `richpush serve`:
/// each setting from its option, else its environment variable (an empty value is no value);
/// the key id from the key's file name `AuthKey_<KEYID>.p8`; key and team ids of Apple's shape;
/// endpoints with a scheme; the sandbox switch and another endpoint exclusive, and an option
/// beating the environment.
struct ProviderSettingsResolution {
    /// The command's option names.
    let names: ProviderSettingNames
    /// The command line.
    let args: ParsedArguments
    /// The process environment.
    let env: [String: String]

    /// A setting's value: its option, else its environment variable; empty counts as absent.
    func value(_ option: String, _ variable: String) -> String? {
        (args.value(option) ?? env[variable]).flatMap { $0.isEmpty ? nil : $0 }
    }

    // MARK: APNs

    /// The `.p8` key file.
    var keyFile: String? { value(names.key, "RICHPUSH_APNS_KEY") }
    /// The key id given, else the one in the key file's name.
    var keyID: String? { value(names.keyID, "RICHPUSH_APNS_KEY_ID") ?? keyFile.flatMap(Self.keyID(fromFileName:)) }
    /// The team id.
    var teamID: String? { value(names.teamID, "RICHPUSH_APNS_TEAM_ID") }
    /// The topic (the app's bundle id).
    var topic: String? { value(names.topic, "RICHPUSH_APNS_TOPIC") }
    /// Extra trust roots for the APNs endpoint.
    var caFile: String? { value(names.caFile, "RICHPUSH_APNS_CA_FILE") }
    /// Another APNs endpoint, as given (not checked).
    var url: String? { value(names.url, "RICHPUSH_APNS_URL") }

    /// The key id in a key file's name `AuthKey_<KEYID>.p8`, `nil` when it has none.
    static func keyID(fromFileName path: String) -> String? {
        let name = URL(fileURLWithPath: path).lastPathComponent
        return name.hasPrefix("AuthKey_") && name.hasSuffix(".p8") && name.count > 11 ? String(name.dropFirst(8).dropLast(3)) : nil
    }

    /// Refuses the sandbox switch together with another endpoint's option.
    func checkSandboxOrURL() throws {
        if args.flag(names.sandbox), args.value(names.url) != nil {
            throw UsageError(
                command: names.command,
                message: "give either '--\(names.sandbox)' (Apple's sandbox) or '--\(names.url) URL' (another endpoint), not both")
        }
    }

    /// Production, sandbox or another endpoint. The sandbox switch beats `RICHPUSH_APNS_URL`
    /// (an option beats the environment); between the variables, `RICHPUSH_APNS_URL` beats
    /// `RICHPUSH_APNS_SANDBOX=1`.
    func environment() throws -> APNsEnvironment {
        try checkSandboxOrURL()
        let sandbox = args.flag(names.sandbox)
        if !sandbox, let url {
            // http:// is HTTP/2 without TLS by prior knowledge (h2c), for test servers.
            return .custom(try checkedURL(url, option: names.url, example: "an h2c test server"))
        }
        return sandbox || env["RICHPUSH_APNS_SANDBOX"] == "1" ? .sandbox : .production
    }

    /// `id` when it has the shape of an Apple key id.
    func checkedKeyID(_ id: String) throws -> String {
        guard Self.isAppleID(id) else {
            throw UsageError(
                command: names.command,
                message:
                    "\(names.command == "serve" ? "the APNs key id" : "the key id") '\(id)' is not 10 letters or digits (Apple's key ids look like ABC123DEFG); check --\(names.keyID) or the AuthKey_<KEYID>.p8 file name"
            )
        }
        return id
    }

    /// `id` when it has the shape of an Apple team id.
    func checkedTeamID(_ id: String) throws -> String {
        guard Self.isAppleID(id) else {
            throw UsageError(
                command: names.command,
                message: "'--\(names.teamID) \(id)' is not 10 letters or digits (Apple's team ids look like ABCDE12345; see Membership details)")
        }
        return id
    }

    /// Whether `id` has the shape of an Apple key id or team id: 10 ASCII letters or digits.
    static func isAppleID(_ id: String) -> Bool {
        id.utf8.count == 10 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
    }

    /// `richpush serve`'s APNs settings: `nil` when none is given; every missing one at once
    /// when some are (a server that would answer 503 to every push is a mistake to fix now).
    func serveAPNs() throws -> APNsSettings? {
        let key = keyFile, keyID = keyID, teamID = teamID, topic = topic
        var missing: [String] = []
        if key == nil { missing.append("--\(names.key) FILE (or RICHPUSH_APNS_KEY)") }
        if keyID == nil { missing.append("--\(names.keyID) KEYID (or RICHPUSH_APNS_KEY_ID)") }
        if teamID == nil { missing.append("--\(names.teamID) TEAMID (or RICHPUSH_APNS_TEAM_ID)") }
        if topic == nil { missing.append("--\(names.topic) BUNDLE_ID (or RICHPUSH_APNS_TOPIC)") }
        guard let key, let keyID, let teamID, let topic else {
            guard missing.count < 4 || url != nil || caFile != nil else { return nil }
            throw UsageError(
                command: names.command,
                message:
                    "the APNs settings for POST /v1/pushes are incomplete: also give \(missing.joined(separator: ", ")); or leave out every --apns-* setting (POST /v1/pushes then sends through FCM only, or answers 503)"
            )
        }
        let environment = try environment()
        var settings = APNsSettings(
            keyFile: key, keyID: try checkedKeyID(keyID), teamID: try checkedTeamID(teamID), topic: topic, environment: environment, caFile: caFile)
        settings.settingNames = names.apns
        settings.transportSettingNames = names.apnsTransport
        return settings
    }

    // MARK: FCM

    /// The service-account JSON file.
    var fcmServiceAccount: String? { value(names.fcmServiceAccount, "RICHPUSH_FCM_SERVICE_ACCOUNT") }

    /// The FCM endpoint (default Google's), checked.
    func fcmEndpoint() throws -> String {
        try checkedURL(value(names.fcmURL, "RICHPUSH_FCM_URL") ?? FCMClient.defaultEndpoint, option: names.fcmURL, example: "a local test server")
    }

    /// The OAuth2 token endpoint given, checked; `nil` = the service account's `token_uri`.
    func fcmTokenURL() throws -> String? {
        try value(names.fcmTokenURL, "RICHPUSH_FCM_TOKEN_URL").map { try checkedURL($0, option: names.fcmTokenURL, example: "a local test server") }
    }

    /// `richpush serve`'s FCM settings, `nil` when no service account is given.
    func serveFCM() throws -> FCMSettings? {
        guard let file = fcmServiceAccount else { return nil }
        var settings = FCMSettings(
            serviceAccountFile: file, endpoint: try fcmEndpoint(), tokenURL: try fcmTokenURL(), caFile: value(names.fcmCAFile, "RICHPUSH_FCM_CA_FILE"))
        settings.settingNames = names.fcm
        settings.transportSettingNames = names.fcmTransport
        return settings
    }

    /// `url` when it starts with `https://` or `http://`.
    func checkedURL(_ url: String, option: String, example: String) throws -> String {
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw UsageError(command: names.command, message: "'--\(option) \(url)' must start with https:// (or http:// for \(example))")
        }
        return url
    }
}
