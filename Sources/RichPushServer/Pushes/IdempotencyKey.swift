import Foundation
import RichPushCore

#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(COpenSSL)
import COpenSSL
#endif

/// The `Idempotency-Key` header of a request and the fingerprint of its body.
///
/// Shape: printable ASCII (0x20…0x7E), 1…255 bytes, given once (as Stripe, OneSignal and the
/// IETF draft `draft-ietf-httpapi-idempotency-key-header` use it; a UUID is the usual value).
/// The body's fingerprint is the SHA-256 of its canonical JSON (keys sorted, no whitespace), so
/// the same fields in another order or spacing are the same request.
struct IdempotencyKey: Sendable, Equatable {
    /// The header's name.
    static let header = "Idempotency-Key"
    /// The longest key, bytes.
    static let maximumBytes = 255

    /// The key as sent.
    let value: String

    /// The request's key, `nil` when it gave none.
    ///
    /// - Parameter request: the request.
    /// - Throws: `HTTPResponseError` 400 `invalid_header` naming `Idempotency-Key` when it is
    ///   empty, longer than 255 bytes, not printable ASCII, or given more than once.
    init?(_ request: ServerRequest) throws {
        let values = request.headerValues(Self.header)
        guard let first = values.first else { return nil }
        guard values.count == 1 else {
            throw Self.invalid("Idempotency-Key is given \(values.count) times; send it once")
        }
        let bytes = Array(first.utf8)
        guard (1...Self.maximumBytes).contains(bytes.count) else {
            throw Self.invalid("Idempotency-Key must be 1…\(Self.maximumBytes) bytes (it is \(bytes.count)); a UUID is a good key")
        }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw Self.invalid("Idempotency-Key must be printable ASCII (0x20…0x7E); a UUID is a good key")
        }
        value = first
    }

    private static func invalid(_ message: String) -> HTTPResponseError {
        HTTPResponseError(code: "invalid_header", field: header, message: message)
    }

    /// Lowercase hex SHA-256 of `body`'s canonical JSON (of the bytes themselves when they are
    /// not JSON).
    ///
    /// - Parameter body: the request body.
    /// - Returns: 64 hex digits.
    /// - Throws: `HTTPResponseError` 500 `digest_failed` when libcrypto fails (never a
    ///   fingerprint that could match another body).
    static func fingerprint(_ body: Data) throws -> String {
        let canonical = (try? RichPushJSONValue.parse(body))?.jsonData(sortedKeys: true) ?? body
        guard let digest = sha256(canonical) else {
            throw HTTPResponseError(status: 500, code: "digest_failed", message: "SHA-256 of the request body failed in libcrypto; retry")
        }
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    private static func sha256(_ data: Data) -> [UInt8]? {
        #if canImport(CryptoKit)
        return Array(SHA256.hash(data: data))
        #else
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let input = [UInt8](data)
        guard EVP_Digest(input, input.count, &digest, &length, EVP_sha256(), nil) == 1, length == 32 else { return nil }
        return digest
        #endif
    }
}
