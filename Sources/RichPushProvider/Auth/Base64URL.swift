import Foundation

/// Base64url without padding (RFC 7515 §2), as JWTs use it.
enum Base64URL {
    /// Encodes bytes.
    static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
