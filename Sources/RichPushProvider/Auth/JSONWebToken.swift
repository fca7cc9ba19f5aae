import Foundation
import RichPushCore

/// Compact JWS (RFC 7515) encoding for provider tokens.
public enum JSONWebToken {
    /// Makes a signed compact JWT.
    ///
    /// - Parameters:
    ///   - header: header members other than `alg` (e.g. `kid`); `alg` comes from the signer.
    ///   - claims: the claims (`iss`, `iat`, …).
    ///   - signer: the key.
    /// - Returns: `base64url(header).base64url(claims).base64url(signature)`.
    /// - Throws: `RichPushError` with code `signing` when the key cannot sign.
    public static func make(header: [String: RichPushJSONValue], claims: [String: RichPushJSONValue], signer: any JWTSigner) throws -> String {
        var h = header
        h["alg"] = .string(signer.algorithm)
        let signingInput =
            Base64URL.encode(RichPushJSONValue.object(h).jsonData(sortedKeys: true)) + "."
            + Base64URL.encode(RichPushJSONValue.object(claims).jsonData(sortedKeys: true))
        let signature = try signer.sign(Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
