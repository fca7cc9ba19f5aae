import Foundation
@_spi(RichPushInternal) import RichPushCore

#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(COpenSSL)
import COpenSSL
#endif

/// ES256 (ECDSA P-256 with SHA-256) signing for APNs provider tokens: CryptoKit on Apple
/// platforms, OpenSSL on Linux.
///
/// - Important: Apple: the APNs auth key is a PKCS#8 PEM EC P-256 key (`AuthKey_<KEYID>.p8`);
///   the JWS signature is the raw r‖s pair, 64 bytes (RFC 7518 §3.4), not DER.
public struct ES256Signer: JWTSigner {
    public let algorithm = "ES256"
    #if canImport(CryptoKit)
    private let key: P256.Signing.PrivateKey
    #elseif canImport(COpenSSL)
    private let key: OpenSSLKey
    #endif

    /// Loads a `.p8` key.
    ///
    /// - Parameters:
    ///   - pem: the PEM text of the key.
    ///   - label: the key's name for error messages (e.g. the file name); never the contents.
    /// - Throws: `RichPushError` with code `invalid_key` when it is not an EC P-256 private key.
    public init(pem: String, label: String = "the key") throws {
        #if canImport(CryptoKit)
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw RichPushError(
                code: .invalidKey, message: "\(label) is not an EC P-256 private key in PEM form; use the AuthKey_XXXXXXXXXX.p8 file from developer.apple.com")
        }
        #elseif canImport(COpenSSL)
        let loaded = try OpenSSLKey(pem: pem, label: label)
        guard loaded.baseID == EVP_PKEY_EC, loaded.bits == 256 else {
            throw RichPushError(
                code: .invalidKey,
                message: "\(label) is not an EC P-256 key (\(loaded.bits)-bit, type \(loaded.baseID)); APNs token auth needs the .p8 auth key")
        }
        key = loaded
        #endif
    }

    /// Loads a `.p8` key file.
    ///
    /// - Parameters:
    ///   - file: the path of `AuthKey_XXXXXXXXXX.p8`.
    ///   - option: where the path came from (`--key`, `RICHPUSH_APNS_KEY`), named in the message
    ///     when the file cannot be read.
    /// - Throws: `RichPushError` with code `io` (unreadable, `FileProblem`) or `invalid_key`.
    public init(contentsOf file: URL, option: String? = nil) throws {
        let data = try FileProblem.read(file.relativePath, what: "the APNs key", option: option)
        try self.init(pem: String(decoding: data, as: UTF8.self), label: file.lastPathComponent)
    }

    /// Signs bytes with ES256.
    /// - Parameter message: the JWS signing input.
    /// - Returns: r‖s, 64 bytes.
    /// - Throws: `RichPushError` with code `signing`.
    public func sign(_ message: Data) throws -> Data {
        #if canImport(CryptoKit)
        do {
            return try key.signature(for: message).rawRepresentation
        } catch {
            throw RichPushError(code: .signing, message: "CryptoKit could not sign: \(error)")
        }
        #elseif canImport(COpenSSL)
        return try OpenSSLKey.rawECDSA(fromDER: key.signSHA256(message), size: 32)
        #else
        throw RichPushError(code: .unsupported, message: "ES256 needs CryptoKit or OpenSSL")
        #endif
    }
}
