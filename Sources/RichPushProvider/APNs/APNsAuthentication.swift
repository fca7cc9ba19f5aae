/// How the provider proves itself to APNs: a token (ES256 JWT from a `.p8` key) or a client certificate.
public struct APNsAuthentication: Sendable {
    let tokenManager: APNsTokenManager?
    let certificate: TransportConfiguration.ClientCertificate?

    /// Token-based auth: every request carries `authorization: bearer <JWT>` from the manager.
    /// - Parameter manager: the shared, cached token.
    /// - Returns: the authentication.
    public static func token(_ manager: APNsTokenManager) -> APNsAuthentication {
        APNsAuthentication(tokenManager: manager, certificate: nil)
    }

    /// Certificate-based auth: the TLS connection presents the app's APNs certificate.
    /// - Parameter certificate: the `.p12` or PEM certificate (and key).
    /// - Returns: the authentication.
    public static func certificate(_ certificate: TransportConfiguration.ClientCertificate) -> APNsAuthentication {
        APNsAuthentication(tokenManager: nil, certificate: certificate)
    }
}
