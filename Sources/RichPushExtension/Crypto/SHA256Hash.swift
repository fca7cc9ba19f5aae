import Foundation

#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(COpenSSL)
import COpenSSL
#endif

/// SHA-256 (FIPS 180-4) with CryptoKit on Apple platforms and libcrypto elsewhere; used for
/// cache file names and receipt ids, never for secrets.
enum SHA256Hash {
    /// The 32-byte digest of `data`.
    static func hash(_ data: Data) -> Data {
        #if canImport(CryptoKit)
        return Data(SHA256.hash(data: data))
        #else
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let input = [UInt8](data)
        // EVP_Digest cannot fail for SHA-256 on valid buffers; a failure leaves zeros, which is
        // still a stable (if weak) name and never crashes.
        _ = EVP_Digest(input, input.count, &digest, &length, EVP_sha256(), nil)
        return Data(digest)
        #endif
    }

    /// The lowercase hex digest of a UTF-8 string.
    static func hex(_ string: String) -> String {
        hash(Data(string.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
