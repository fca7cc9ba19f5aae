import Foundation
import RichPushProvider

/// How `richpush serve` reaches FCM HTTP v1 for `POST /v1/pushes` with `"provider": "fcm"`:
/// a Google service account, and endpoints a test server can replace.
///
/// Resolved by the command line as `richpush send`'s (see `richpush serve --help`).
public struct FCMSettings: Sendable {
    /// The service-account JSON file (its private key is never printed or logged).
    public var serviceAccountFile: String
    /// The FCM base URL (default `https://fcm.googleapis.com`).
    public var endpoint: String
    /// The OAuth2 token endpoint, when not the file's `token_uri`.
    public var tokenURL: String?
    /// Extra trust roots for the endpoints (a test CA), PEM.
    public var caFile: String?
    /// What messages call the FCM settings (the program's options, or described in words).
    public var settingNames = FCMSettingNames.descriptive
    /// What messages call the transport's settings (the CA file, the endpoint).
    public var transportSettingNames = TransportSettingNames.descriptive

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
}
