import Foundation

/// A payload after its `enc` envelope was opened (or failed to open): what the pipeline reads
/// instead of the payload as received.
///
/// The plaintext is a JSON object. `title`, `subtitle` and `body` (strings) replace those of
/// `aps.alert`; every other key (for example `media-url`, a `media` array, `push_id`, `buttons`,
/// `thumbnail`, `badge_op`) is set at the payload's top level, where the configured key paths
/// find it. `aps` and `enc` in the plaintext are ignored. On failure the `enc` key is removed and
/// the rest of the payload (the server's generic alert, and any media it names in the clear) is
/// kept unchanged: no ciphertext, and no error string, ever reaches the content.
public struct DecryptedPayload: Sendable, Equatable {
    /// The payload to process (plaintext merged in, or the original without `enc`).
    public var payload: JSONValue
    /// Whether the payload carried an `enc` key.
    public var wasEncrypted: Bool
    /// Why decryption failed; `nil` when it succeeded or there was nothing to decrypt.
    public var error: DecryptError?

    /// The plaintext keys that go into `aps.alert`.
    public static let alertKeys = ["title", "subtitle", "body"]

    /// Opens a payload's `enc` envelope, if it has one.
    ///
    /// - Parameters:
    ///   - payload: the payload as received.
    ///   - keys: the key provider; `nil` makes every envelope fail with `unknown_kid`.
    /// - Returns: the payload to process; never throws, a failure is in `error`.
    public static func open(_ payload: JSONValue, keys: (any KeyProvider)?) -> DecryptedPayload {
        guard var root = payload.objectValue, let enc = root[EncryptedEnvelope.payloadKey] else {
            return DecryptedPayload(payload: payload, wasEncrypted: false, error: nil)
        }
        root[EncryptedEnvelope.payloadKey] = nil
        let plaintext: [String: JSONValue]
        do {
            let envelope = try EncryptedEnvelope(json: enc)
            plaintext = try PayloadCipher.decrypt(envelope, keys: keys)
        } catch {
            return DecryptedPayload(payload: .object(root), wasEncrypted: true, error: error)
        }
        var alert: [String: JSONValue] = [:]
        var aps = root["aps"]?.objectValue ?? [:]
        switch aps["alert"] {
        case .object(let existing): alert = existing
        case .string(let body): alert["body"] = .string(body)
        default: break
        }
        for (key, value) in plaintext {
            if Self.alertKeys.contains(key) {
                if case .string = value { alert[key] = value }
            } else if key != "aps" && key != EncryptedEnvelope.payloadKey {
                root[key] = value
            }
        }
        aps["alert"] = .object(alert)
        root["aps"] = .object(aps)
        return DecryptedPayload(payload: .object(root), wasEncrypted: true, error: nil)
    }
}
