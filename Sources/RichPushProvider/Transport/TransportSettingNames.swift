/// What the program calls the settings a transport's messages point to (trust, endpoint, client
/// certificate), so a failure names what to change. The default describes each in words; a
/// program passes its own names (the CLI's `ProviderSettingNames`).
public struct TransportSettingNames: Sendable, Equatable {
    /// Extra trust roots (a PEM CA file).
    public var caFile: String
    /// The endpoint's base URL.
    public var url: String
    /// The client certificate.
    public var certificate: String
    /// The client certificate's private key, when in another file.
    public var certificateKey: String
    /// The APNs auth key (`.p8`), for a key given where a certificate belongs.
    public var authKey: String

    /// Names of one program's settings.
    ///
    /// - Parameters:
    ///   - caFile: the CA file setting.
    ///   - url: the endpoint setting.
    ///   - certificate: the client certificate setting.
    ///   - certificateKey: the certificate's key setting.
    ///   - authKey: the APNs auth key setting.
    public init(caFile: String, url: String, certificate: String, certificateKey: String, authKey: String) {
        self.caFile = caFile
        self.url = url
        self.certificate = certificate
        self.certificateKey = certificateKey
        self.authKey = authKey
    }

    /// Each setting described in words.
    public static let descriptive = TransportSettingNames(
        caFile: "the CA file", url: "the endpoint URL", certificate: "the client certificate", certificateKey: "the certificate's key file",
        authKey: "the auth key setting")
}
