#if canImport(COpenSSL)
import COpenSSL
import Foundation
import RichPushCore

/// A private key loaded with OpenSSL (Linux), and the signing calls ES256 and RS256 need.
///
/// The PEM text is never kept, printed or put in an error message.
///
/// `@unchecked Sendable`: its one stored value, the `EVP_PKEY`, is never changed after loading.
final class OpenSSLKey: @unchecked Sendable {
    /// The key; OpenSSL's `EVP_PKEY` is safe to use for signing from several threads.
    let key: OpaquePointer

    /// Reads a PEM private key (PKCS#8 `BEGIN PRIVATE KEY`, or the traditional EC / RSA forms).
    ///
    /// - Parameters:
    ///   - pem: the PEM text.
    ///   - label: how to name the key in error messages (its file name, never its contents).
    /// - Throws: `RichPushError` with code `invalid_key`.
    init(pem: String, label: String) throws {
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let parsed else {
            throw RichPushError(
                code: .invalidKey,
                message:
                    "\(label) is not a PEM private key (\(Self.lastError())); an APNs key is the AuthKey_XXXXXXXXXX.p8 file from developer.apple.com, starting with -----BEGIN PRIVATE KEY-----"
            )
        }
        key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    /// The OpenSSL key type id (`EVP_PKEY_EC`, `EVP_PKEY_RSA`).
    var baseID: Int32 { EVP_PKEY_get_base_id(key) }
    /// The key size in bits (256 for P-256).
    var bits: Int32 { EVP_PKEY_get_bits(key) }

    /// Signs `message` with SHA-256 (ECDSA for an EC key, PKCS#1 v1.5 for RSA).
    ///
    /// - Returns: the signature as OpenSSL produces it (DER for ECDSA).
    func signSHA256(_ message: Data) throws -> Data {
        guard let ctx = EVP_MD_CTX_new() else { throw Self.signingError("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key) == 1 else { throw Self.signingError("EVP_DigestSignInit") }
        let bytes = Array(message)
        var length = 0
        guard EVP_DigestSign(ctx, nil, &length, bytes, bytes.count) == 1 else { throw Self.signingError("EVP_DigestSign") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(ctx, &signature, &length, bytes, bytes.count) == 1 else { throw Self.signingError("EVP_DigestSign") }
        return Data(signature[0..<length])
    }

    /// Converts a DER ECDSA signature to JWS form: r‖s, each left-padded to `size` bytes.
    static func rawECDSA(fromDER der: Data, size: Int) throws -> Data {
        let bytes = Array(der)
        let sig: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var p: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &p, buffer.count)
        }
        guard let sig else { throw signingError("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(sig) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(sig, &r, &s)
        var out = [UInt8](repeating: 0, count: size * 2)
        let ok = out.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, Int32(size)) == size && BN_bn2binpad(s, base + size, Int32(size)) == size
        }
        guard ok else { throw signingError("BN_bn2binpad") }
        return Data(out)
    }

    static func signingError(_ call: String) -> RichPushError {
        RichPushError(code: .signing, message: "OpenSSL \(call) failed: \(lastError())")
    }

    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no OpenSSL error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        ERR_clear_error()
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif
