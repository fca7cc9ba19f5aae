import Foundation

#if canImport(COpenSSL)
import COpenSSL
#elseif canImport(CryptoKit)
import CryptoKit
#endif

/// SHA-256 for the media edge's content addresses: OpenSSL's libcrypto on Linux, CryptoKit on
/// Apple platforms.
enum MediaDigest {
    /// The 32-byte SHA-256 of `data`.
    ///
    /// - Parameter data: the bytes.
    /// - Returns: the digest.
    static func sha256(_ data: Data) -> [UInt8] {
        #if canImport(COpenSSL)
        var out = [UInt8](repeating: 0, count: 32)
        data.withUnsafeBytes { raw in
            _ = SHA256(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &out)
        }
        return out
        #elseif canImport(CryptoKit)
        return Array(SHA256.hash(data: data))
        #else
        #error("the media edge needs OpenSSL or CryptoKit for SHA-256")
        #endif
    }
}
