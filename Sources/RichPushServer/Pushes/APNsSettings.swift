import Foundation
import RichPushCore
import RichPushProvider

/// How `richpush serve` reaches APNs for `POST /v1/pushes`: token auth with a `.p8` key.
///
/// The same settings as `richpush send`, from `--apns-*` flags or the `RICHPUSH_APNS_*`
/// environment variables (see `richpush serve --help`).
public struct APNsSettings: Sendable {
    /// The APNs auth key `AuthKey_XXXXXXXXXX.p8` (its contents are never printed or logged).
    public var keyFile: String
    /// The key's 10-character id (JWT `kid`).
    public var keyID: String
    /// The 10-character team id (JWT `iss`).
    public var teamID: String
    /// The default `apns-topic` (the app's bundle id); a request may name another.
    public var topic: String
    /// Production, sandbox, or another APNs-compatible endpoint (`--apns-url`).
    public var environment: APNsEnvironment
    /// Extra trust roots for a custom endpoint (a test CA), PEM.
    public var caFile: String?

    /// Makes the settings.
    ///
    /// - Parameters:
    ///   - keyFile: the `.p8` path.
    ///   - keyID: the key id.
    ///   - teamID: the team id.
    ///   - topic: the default topic.
    ///   - environment: where requests go.
    ///   - caFile: extra trust roots, if any.
    public init(keyFile: String, keyID: String, teamID: String, topic: String, environment: APNsEnvironment, caFile: String? = nil) {
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.environment = environment
        self.caFile = caFile
    }

    /// The settings from flag values (`lookup("apns-key")`) and environment variables, or the list
    /// of what is missing.
    ///
    /// The key id defaults to the 10 characters after `AuthKey_` in the key's file name, as
    /// `richpush send` does.
    ///
    /// - Parameters:
    ///   - option: the value of a flag by name (`apns-key`, `apns-key-id`, `apns-team-id`,
    ///     `apns-topic`, `apns-url`, `apns-ca-file`), `nil` when absent.
    ///   - sandbox: whether `--apns-sandbox` was given.
    ///   - environment: the process environment (`RICHPUSH_APNS_KEY`, `RICHPUSH_APNS_KEY_ID`,
    ///     `RICHPUSH_APNS_TEAM_ID`, `RICHPUSH_APNS_TOPIC`, `RICHPUSH_APNS_URL`,
    ///     `RICHPUSH_APNS_CA_FILE`, `RICHPUSH_APNS_SANDBOX=1`).
    /// - Returns: `.success` with the settings, or `.failure` naming each missing setting as
    ///   "--apns-key (or RICHPUSH_APNS_KEY)"; `nil` when no APNs setting was given at all.
    public static func resolve(
        option: (String) -> String?, sandbox: Bool, environment: [String: String]
    ) -> Result<APNsSettings, MissingSettings>? {
        func value(_ name: String, _ variable: String) -> String? {
            (option(name) ?? environment[variable]).flatMap { $0.isEmpty ? nil : $0 }
        }
        let key = value("apns-key", "RICHPUSH_APNS_KEY")
        let derivedID = key.flatMap { path -> String? in
            let name = URL(fileURLWithPath: path).lastPathComponent
            return name.hasPrefix("AuthKey_") && name.hasSuffix(".p8") && name.count > 11 ? String(name.dropFirst(8).dropLast(3)) : nil
        }
        let keyID = value("apns-key-id", "RICHPUSH_APNS_KEY_ID") ?? derivedID
        let teamID = value("apns-team-id", "RICHPUSH_APNS_TEAM_ID")
        let topic = value("apns-topic", "RICHPUSH_APNS_TOPIC")
        let url = value("apns-url", "RICHPUSH_APNS_URL")
        let caFile = value("apns-ca-file", "RICHPUSH_APNS_CA_FILE")
        var missing: [String] = []
        if key == nil { missing.append("--apns-key FILE (or RICHPUSH_APNS_KEY)") }
        if keyID == nil { missing.append("--apns-key-id KEYID (or RICHPUSH_APNS_KEY_ID)") }
        if teamID == nil { missing.append("--apns-team-id TEAMID (or RICHPUSH_APNS_TEAM_ID)") }
        if topic == nil { missing.append("--apns-topic BUNDLE_ID (or RICHPUSH_APNS_TOPIC)") }
        guard let key, let keyID, let teamID, let topic else {
            let anything = missing.count < 4 || url != nil || caFile != nil
            return anything ? .failure(MissingSettings(names: missing)) : nil
        }
        let sandboxOn = sandbox || environment["RICHPUSH_APNS_SANDBOX"] == "1"
        let environmentChoice: APNsEnvironment = url.map { .custom($0) } ?? (sandboxOn ? .sandbox : .production)
        return .success(APNsSettings(keyFile: key, keyID: keyID, teamID: teamID, topic: topic, environment: environmentChoice, caFile: caFile))
    }

    /// The signer for the `.p8` key, read from `keyFile`.
    ///
    /// - Returns: the ES256 signer of the provider tokens.
    /// - Throws: `RichPushError` `io` naming the path, what is wrong with it (no such file, a
    ///   directory, not readable) and the flag (`--apns-key` or `RICHPUSH_APNS_KEY`); `invalid_key`
    ///   when the file is not an EC P-256 key in PEM form.
    public func signer() throws -> ES256Signer {
        func unreadable(_ reason: String) -> RichPushError {
            RichPushError(
                code: .io,
                message:
                    "cannot read the APNs key \(keyFile) given to --apns-key (or RICHPUSH_APNS_KEY): \(reason); check the path (the AuthKey_XXXXXXXXXX.p8 file from developer.apple.com → Certificates, Identifiers & Profiles → Keys)"
            )
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: keyFile, isDirectory: &isDirectory) else { throw unreadable("no such file") }
        guard !isDirectory.boolValue else { throw unreadable("it is a directory") }
        guard FileManager.default.isReadableFile(atPath: keyFile), let data = FileManager.default.contents(atPath: keyFile) else {
            throw unreadable("permission denied")
        }
        do {
            return try ES256Signer(pem: String(decoding: data, as: UTF8.self), label: URL(fileURLWithPath: keyFile).lastPathComponent)
        } catch let error as RichPushError {
            throw RichPushError(code: error.code, message: "the APNs key given to --apns-key (or RICHPUSH_APNS_KEY): \(error.message)")
        }
    }

    /// The APNs settings that were not given.
    public struct MissingSettings: Error, Sendable, Equatable {
        /// Each missing setting as "--apns-key FILE (or RICHPUSH_APNS_KEY)".
        public var names: [String]
    }

    /// Every setting `POST /v1/pushes` needs, for the 503 when none was given.
    public static let allSettings = APNsSettings.MissingSettings(names: [
        "--apns-key FILE (or RICHPUSH_APNS_KEY)", "--apns-key-id KEYID (or RICHPUSH_APNS_KEY_ID)",
        "--apns-team-id TEAMID (or RICHPUSH_APNS_TEAM_ID)", "--apns-topic BUNDLE_ID (or RICHPUSH_APNS_TOPIC)",
    ])
}
