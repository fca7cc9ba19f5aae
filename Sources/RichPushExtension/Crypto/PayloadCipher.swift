import Foundation

/// Seals and opens the plaintext of an `enc` envelope (AES-256-GCM; CryptoKit on Apple platforms,
/// OpenSSL's libcrypto elsewhere).
@_spi(RichPushInternal)
public enum PayloadCipher {
    /// Encrypts a plaintext JSON object into a version-2 envelope with a fresh random 12-byte IV,
    /// bound to the push id the payload carries in the clear (AES-GCM associated data).
    ///
    /// - Parameters:
    ///   - plaintext: the object to hide (see `DecryptedPayload` for the keys the extension reads).
    ///   - key: the 32-byte AES-256 key.
    ///   - kid: the key id the device will look up (1…64 characters).
    ///   - pushID: the push id the payload will carry in the clear next to `enc` (`nil`: none);
    ///     the device decrypts only under that same push id.
    /// - Returns: the envelope; put `envelope.json` under the payload's `enc` key.
    /// - Throws: `RichPushError` `configuration` for a key that is not 32 bytes or a bad `kid`,
    ///   `io` when the system's random generator or the cipher fails.
    public static func encrypt(_ plaintext: [String: RichPushJSONValue], key: Data, kid: String, pushID: String? = nil) throws -> EncryptedEnvelope {
        guard key.count == AESGCM.keyBytes else {
            throw RichPushError(code: .configuration, message: "the key is \(key.count) bytes; AES-256 keys are 32 bytes")
        }
        guard !kid.isEmpty, kid.count <= 64 else {
            throw RichPushError(code: .configuration, message: "the key id must be 1…64 characters")
        }
        let data = RichPushJSONValue.object(plaintext).jsonData(sortedKeys: true)
        do {
            let iv = try AESGCM.randomBytes(AESGCM.nonceBytes)
            let unsealed = EncryptedEnvelope(kid: kid, iv: iv, ciphertext: Data(), tag: Data())
            let sealed = try AESGCM.seal(data, key: key, nonce: iv, associatedData: unsealed.associatedData(pushID: pushID))
            return EncryptedEnvelope(kid: kid, iv: iv, ciphertext: sealed.ciphertext, tag: sealed.tag)
        } catch {
            throw RichPushError(code: .io, message: "AES-256-GCM encryption failed: \(error)", underlying: error)
        }
    }

    /// Decrypts and authenticates an envelope.
    ///
    /// - Parameters:
    ///   - envelope: the envelope.
    ///   - keys: where the key for `envelope.kid` comes from; `nil` = no keys configured.
    ///   - pushID: the push id of the payload in the clear (`nil`: none); a version-2 envelope
    ///     opens only under the push id it was made for.
    /// - Returns: the plaintext JSON object.
    /// - Throws: `DecryptError` with `unknown_kid`, `truncated` (IV not 12 bytes, tag under 16,
    ///   empty ciphertext), `bad_tag` (authentication failed, or a version-2 ciphertext under
    ///   another push id) or `bad_json`.
    public static func decrypt(_ envelope: EncryptedEnvelope, keys: (any RichPushKeyProvider)?, pushID: String? = nil) throws(DecryptError) -> [String:
        RichPushJSONValue]
    {
        guard let key = keys?.key(for: envelope.kid) else {
            throw DecryptError(.unknownKid, keys == nil ? "no key provider is configured" : "no key with the envelope's kid")
        }
        guard envelope.iv.count == AESGCM.nonceBytes else {
            throw DecryptError(.truncated, "the IV is \(envelope.iv.count) bytes; expected 12")
        }
        guard envelope.tag.count == AESGCM.tagBytes else {
            throw DecryptError(.truncated, "the tag is \(envelope.tag.count) bytes; expected 16")
        }
        guard !envelope.ciphertext.isEmpty else {
            throw DecryptError(.truncated, "the ciphertext is empty")
        }
        let plaintext: Data
        do {
            plaintext = try AESGCM.open(
                ciphertext: envelope.ciphertext, tag: envelope.tag, key: key, nonce: envelope.iv,
                associatedData: envelope.associatedData(pushID: pushID))
        } catch {
            throw DecryptError(
                .badTag,
                envelope.version >= 2
                    ? "authentication failed (wrong key, altered ciphertext, IV or tag, or a ciphertext made for another push id)"
                    : "authentication failed (wrong key, or altered ciphertext, IV or tag)")
        }
        guard let json = try? RichPushJSONValue.parse(plaintext), let object = json.objectValue else {
            throw DecryptError(.badJSON, "the plaintext is not a JSON object")
        }
        return object
    }
}
