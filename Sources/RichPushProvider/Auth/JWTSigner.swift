import Foundation

/// Something that signs a JWT's `header.claims` bytes for one `alg`.
public protocol JWTSigner: Sendable {
    /// The JWS `alg` value, e.g. `ES256`.
    var algorithm: String { get }
    /// Signs bytes.
    /// - Parameter message: the ASCII `base64url(header).base64url(claims)`.
    /// - Returns: the JWS signature bytes (ES256: raw r‖s, 64 bytes; RS256: 256 bytes for RSA-2048).
    /// - Throws: `RichPushError` with code `signing`.
    func sign(_ message: Data) throws -> Data
}
