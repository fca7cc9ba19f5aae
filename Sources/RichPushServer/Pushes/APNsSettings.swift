import Foundation
import RichPushCore
import RichPushProvider

/// How `richpush serve` reaches APNs for `POST /v1/pushes`: token auth with a `.p8` key.
///
/// The same settings as `richpush send` (the command line resolves both alike, and names its
/// options in `settingNames`).
public struct APNsSettings: Sendable {
    /// The APNs auth key `AuthKey_XXXXXXXXXX.p8` (its contents are never printed or logged).
    public var keyFile: String
    /// The key's 10-character id (JWT `kid`).
    public var keyID: String
    /// The 10-character team id (JWT `iss`).
    public var teamID: String
    /// The default `apns-topic` (the app's bundle id); a request may name another.
    public var topic: String
    /// Production, sandbox, or another APNs-compatible endpoint.
    public var environment: APNsEnvironment
    /// Extra trust roots for a custom endpoint (a test CA), PEM.
    public var caFile: String?
    /// HTTP/2 connections to APNs (1…64, default 1), one provider token for all; each follows its
    /// server's `SETTINGS_MAX_CONCURRENT_STREAMS` (`HTTP2Client`).
    public var connections = 1
    /// What messages call the APNs settings (the program's options, or described in words).
    public var settingNames = APNsSettingNames.descriptive
    /// What messages call the transport's settings (the CA file, the endpoint).
    public var transportSettingNames = TransportSettingNames.descriptive

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

    /// The signer for the `.p8` key, read from `keyFile`.
    ///
    /// - Returns: the ES256 signer of the provider tokens.
    /// - Throws: `RichPushError` `io` naming the path, what is wrong with it (no such file, a
    ///   directory, not readable) and the setting (`settingNames.key` or `RICHPUSH_APNS_KEY`); `invalid_key`
    ///   when the file is not an EC P-256 key in PEM form.
    public func signer() throws -> ES256Signer {
        func unreadable(_ reason: String) -> RichPushError {
            RichPushError(
                code: .io,
                message:
                    "cannot read the APNs key \(keyFile) given to \(settingNames.key) (or RICHPUSH_APNS_KEY): \(reason); check the path (the AuthKey_XXXXXXXXXX.p8 file from developer.apple.com → Certificates, Identifiers & Profiles → Keys)"
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
            throw RichPushError(code: error.code, message: "the APNs key given to \(settingNames.key) (or RICHPUSH_APNS_KEY): \(error.message)")
        }
    }

    /// The APNs settings that were not given.
    public struct MissingSettings: Error, Sendable, Equatable {
        /// Each missing setting as "--apns-key FILE (or RICHPUSH_APNS_KEY)".
        public var names: [String]
    }
}
