import Foundation
import RichPushCore

#if canImport(COpenSSL)
import COpenSSL
#endif

/// RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signing for Google service-account JWTs (FCM HTTP v1).
///
/// OpenSSL on Linux. On Apple platforms (no OpenSSL) it throws `unsupported`.
public struct RS256Signer: JWTSigner {
    public let algorithm = "RS256"
    #if canImport(COpenSSL)
    private let key: OpenSSLKey
    #endif

    /// Loads a PEM RSA private key (the `private_key` of a service-account JSON).
    ///
    /// - Parameters:
    ///   - pem: the PEM text.
    ///   - label: the key's name for error messages; never its contents.
    /// - Throws: `RichPushError` with code `invalid_key` or `unsupported`.
    public init(pem: String, label: String = "the service account key") throws {
        #if canImport(COpenSSL)
        let loaded = try OpenSSLKey(pem: pem, label: label)
        guard loaded.baseID == EVP_PKEY_RSA else {
            throw RichPushError(code: .invalidKey, message: "\(label) is not an RSA key; use the private_key of a Google service-account JSON")
        }
        key = loaded
        #else
        throw RichPushError(code: .unsupported, message: "RS256 signing is available on Linux (OpenSSL) only in this build")
        #endif
    }

    /// Signs bytes with RS256.
    /// - Parameter message: the JWS signing input.
    /// - Returns: the PKCS#1 v1.5 signature (256 bytes for RSA-2048).
    /// - Throws: `RichPushError` with code `signing`.
    public func sign(_ message: Data) throws -> Data {
        #if canImport(COpenSSL)
        return try key.signSHA256(message)
        #else
        throw RichPushError(code: .unsupported, message: "RS256 signing is available on Linux (OpenSSL) only in this build")
        #endif
    }
}
