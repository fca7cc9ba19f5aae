import Foundation
import RichPushCore

#if canImport(COpenSSL)
import COpenSSL
#elseif canImport(CryptoKit)
import CryptoKit
#endif

/// HMAC-SHA256 (RFC 2104), for proofs such as a device registration's `user_hash`.
///
/// OpenSSL's libcrypto on Linux (`EVP_Q_mac`), CryptoKit on Apple platforms.
public enum HMACSHA256 {
    /// The MAC of `message` under `key`.
    ///
    /// - Parameters:
    ///   - message: the message bytes.
    ///   - key: the secret key (any length; 32 bytes or more recommended).
    /// - Returns: the 32-byte MAC.
    /// - Throws: `RichPushError` `signing` when libcrypto fails.
    public static func authenticate(_ message: Data, key: Data) throws -> Data {
        #if canImport(COpenSSL)
        var out = [UInt8](repeating: 0, count: 32)
        var length = 0
        let ok = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                EVP_Q_mac(
                    nil, "HMAC", nil, "SHA256", nil, k.baseAddress, k.count,
                    m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count, &out, out.count, &length) != nil
            }
        }
        guard ok, length == 32 else { throw RichPushError(code: .signing, message: "HMAC-SHA256 failed in libcrypto") }
        return Data(out)
        #elseif canImport(CryptoKit)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        #else
        throw RichPushError(code: .unsupported, message: "HMAC-SHA256 needs OpenSSL or CryptoKit")
        #endif
    }

    /// Whether `mac` is the MAC of `message` under `key`, compared in constant time.
    ///
    /// - Parameters:
    ///   - mac: the claimed MAC.
    ///   - message: the message bytes.
    ///   - key: the secret key.
    /// - Returns: `true` when it matches.
    public static func verify(_ mac: Data, message: Data, key: Data) -> Bool {
        guard let expected = try? authenticate(message, key: key), expected.count == mac.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(expected, mac) { difference |= a ^ b }
        return difference == 0
    }
}
