import Foundation
import RichPushProvider

/// How `richpush serve` reaches FCM HTTP v1 for `POST /v1/pushes` with `"provider": "fcm"`:
/// a Google service account, and endpoints a test server can replace.
///
/// From `--fcm-*` flags or the `RICHPUSH_FCM_*` environment variables (see `richpush serve --help`).
public struct FCMSettings: Sendable {
    /// The service-account JSON file (its private key is never printed or logged).
    public var serviceAccountFile: String
    /// The FCM base URL (default `https://fcm.googleapis.com`).
    public var endpoint: String
    /// The OAuth2 token endpoint, when not the file's `token_uri`.
    public var tokenURL: String?
    /// Extra trust roots for the endpoints (a test CA), PEM.
    public var caFile: String?

    /// Makes the settings.
    ///
    /// - Parameters:
    ///   - serviceAccountFile: the service-account JSON path.
    ///   - endpoint: the FCM base URL.
    ///   - tokenURL: the OAuth2 token endpoint override.
    ///   - caFile: extra trust roots.
    public init(serviceAccountFile: String, endpoint: String = FCMClient.defaultEndpoint, tokenURL: String? = nil, caFile: String? = nil) {
        self.serviceAccountFile = serviceAccountFile
        self.endpoint = endpoint
        self.tokenURL = tokenURL
        self.caFile = caFile
    }

    /// The settings from flag values (`fcm-service-account`, `fcm-url`, `fcm-token-url`,
    /// `fcm-ca-file`) and the environment (`RICHPUSH_FCM_SERVICE_ACCOUNT`, `RICHPUSH_FCM_URL`,
    /// `RICHPUSH_FCM_TOKEN_URL`, `RICHPUSH_FCM_CA_FILE`).
    ///
    /// - Parameters:
    ///   - option: a flag's value by name, `nil` when absent.
    ///   - environment: the process environment.
    /// - Returns: the settings, `nil` when no service account was given.
    public static func resolve(option: (String) -> String?, environment: [String: String]) -> FCMSettings? {
        func value(_ name: String, _ variable: String) -> String? {
            (option(name) ?? environment[variable]).flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let file = value("fcm-service-account", "RICHPUSH_FCM_SERVICE_ACCOUNT") else { return nil }
        return FCMSettings(
            serviceAccountFile: file, endpoint: value("fcm-url", "RICHPUSH_FCM_URL") ?? FCMClient.defaultEndpoint,
            tokenURL: value("fcm-token-url", "RICHPUSH_FCM_TOKEN_URL"), caFile: value("fcm-ca-file", "RICHPUSH_FCM_CA_FILE"))
    }
}
