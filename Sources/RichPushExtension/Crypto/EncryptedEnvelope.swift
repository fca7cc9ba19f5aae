import Foundation

/// The `enc` envelope of an encrypted payload: AES-256-GCM, version 2 (version 1 still read).
///
/// On the wire (a top-level key of the APNs payload, next to a generic `aps.alert`):
/// ```json
/// "enc": {"v": 2, "kid": "k-2", "iv": "<base64, 12 bytes>", "ct": "<base64>", "tag": "<base64, 16 bytes>"}
/// ```
/// - `v`: envelope version, the integer `2` (or `1`, see below).
/// - `kid`: the key id the device looks up in its key provider (1…64 characters).
/// - `iv`: the 96-bit GCM nonce, fresh and random per message (never reuse one with a key).
/// - `ct`: the ciphertext of a UTF-8 JSON object (see `DecryptedPayload` for its keys).
/// - `tag`: the full 128-bit GCM authentication tag.
///
/// Standard base64 with padding (RFC 4648 §4).
///
/// Additional authenticated data (AAD): version 2 authenticates the payload's clear push id
/// with the ciphertext: the UTF-8 bytes of the push id found in the clear payload (the first of
/// the push id key paths, `aps.alert.push_id`, `push_id`, `message_id`, `gcm.message_id` by
/// default; a string as it is, an integer in decimal), or no bytes when the clear payload has
/// none. A ciphertext copied into another push's payload then fails to authenticate
/// (`bad_tag`, reported `decrypt_failed`) instead of being shown and counted under that push.
/// Version 1 has no AAD: still read, but such a ciphertext can be moved between pushes; write 2.
/// Any AES-256-GCM implementation makes one: Python `cryptography`'s
/// `AESGCM(key).encrypt(iv, pt, push_id.encode())` returns `ct + tag` (split the last 16 bytes
/// off); `richpush encrypt` does it for you.
@_spi(RichPushInternal)
public struct EncryptedEnvelope: Sendable, Equatable {
    /// The version this code writes: 2, the clear push id as AAD.
    public static let currentVersion = 2
    /// The versions this code reads: 1 (no AAD) and 2.
    public static let readableVersions = [1, 2]
    /// The payload key that holds the envelope.
    public static let payloadKey = "enc"

    /// The envelope version.
    public var version: Int
    /// The key id.
    public var kid: String
    /// The nonce (12 bytes when well formed).
    public var iv: Data
    /// The ciphertext (as long as the plaintext).
    public var ciphertext: Data
    /// The authentication tag (16 bytes when well formed).
    public var tag: Data

    /// Makes an envelope from its parts.
    /// - Parameters:
    ///   - version: the envelope version (2; 1 for the old form without AAD).
    ///   - kid: the key id.
    ///   - iv: the nonce.
    ///   - ciphertext: the ciphertext.
    ///   - tag: the tag.
    public init(version: Int = EncryptedEnvelope.currentVersion, kid: String, iv: Data, ciphertext: Data, tag: Data) {
        self.version = version
        self.kid = kid
        self.iv = iv
        self.ciphertext = ciphertext
        self.tag = tag
    }

    /// Reads an envelope from the value of a payload's `enc` key.
    ///
    /// - Parameter json: the `enc` value.
    /// - Throws: `DecryptError` `bad_envelope` (wrong shape), `bad_version`, `bad_base64`.
    public init(json: RichPushJSONValue) throws(DecryptError) {
        guard let object = json.objectValue else {
            throw DecryptError(.badEnvelope, "'enc' must be an object with v, kid, iv, ct and tag")
        }
        guard let version = object["v"]?.intValue else {
            throw DecryptError(.badVersion, "'enc.v' is missing or not an integer; expected 2 (or 1)")
        }
        guard Self.readableVersions.contains(version) else {
            throw DecryptError(.badVersion, "'enc.v' is \(version); this version reads 1 and 2")
        }
        guard let kid = object["kid"]?.stringValue, !kid.isEmpty, kid.count <= 64 else {
            throw DecryptError(.badEnvelope, "'enc.kid' must be a string of 1…64 characters")
        }
        var parts: [Data] = []
        for field in ["iv", "ct", "tag"] {
            guard let text = object[field]?.stringValue else {
                throw DecryptError(.badEnvelope, "'enc.\(field)' is missing or not a string")
            }
            guard let bytes = Data(base64Encoded: text) else {
                throw DecryptError(.badBase64, "'enc.\(field)' is not standard base64")
            }
            parts.append(bytes)
        }
        self.init(version: version, kid: kid, iv: parts[0], ciphertext: parts[1], tag: parts[2])
    }

    /// The additional authenticated data of this envelope for a payload whose clear push id is
    /// `pushID`: its UTF-8 bytes for version 2, none for version 1.
    ///
    /// - Parameter pushID: the clear push id (`nil`: the payload has none).
    /// - Returns: the AAD bytes.
    public func associatedData(pushID: String?) -> Data {
        version >= 2 ? Data((pushID ?? "").utf8) : Data()
    }

    /// The envelope as the JSON value of the payload's `enc` key.
    public var json: RichPushJSONValue {
        .object([
            "v": .int(version),
            "kid": .string(kid),
            "iv": .string(iv.base64EncodedString()),
            "ct": .string(ciphertext.base64EncodedString()),
            "tag": .string(tag.base64EncodedString()),
        ])
    }
}
