import Foundation

/// A payload after its `enc` envelope was opened (or failed to open): what the pipeline reads
/// instead of the payload as received.
///
/// The plaintext is a JSON object. `title`, `subtitle` and `body` (strings) replace those of
/// `aps.alert`; every other key (for example `media-url`, a `media` array, `push_id`, `buttons`,
/// `thumbnail`, `badge_op`) is set at the payload's top level, where the configured key paths
/// find it. `aps` and `enc` in the plaintext are ignored.
///
/// When the envelope decrypts, the content comes from the plaintext only: of the clear payload
/// just `aps` (its alert reduced to the generic `title`, `subtitle` and `body`) and the clear
/// push id are kept; every other clear key (a clear `image-url`, `aps.alert.image`, `buttons`,
/// …) is dropped, so nobody who can edit the payload on its way, but has no key, can put media
/// or buttons under the decrypted text. A version-2 envelope opens only under the clear push id
/// it was made for (see `EncryptedEnvelope`).
///
/// On failure the `enc` key is removed and the rest of the payload (the server's generic alert,
/// and any media it names in the clear) is kept unchanged: no ciphertext, and no error string,
/// ever reaches the content.
@_spi(RichPushInternal)
public struct DecryptedPayload: Sendable, Equatable {
    /// The payload to process (plaintext merged in, or the original without `enc`).
    public var payload: RichPushJSONValue
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
    ///   - pushIDKeyPaths: where the clear push id is looked for (the pipeline's
    ///     `pushIDKeyPaths`); the first found is the one a version-2 envelope is bound to.
    /// - Returns: the payload to process; never throws, a failure is in `error`.
    public static func open(
        _ payload: RichPushJSONValue, keys: (any RichPushKeyProvider)?, pushIDKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultPushIDKeyPaths
    ) -> DecryptedPayload {
        guard var root = payload.objectValue, let enc = root[EncryptedEnvelope.payloadKey] else {
            return DecryptedPayload(payload: payload, wasEncrypted: false, error: nil)
        }
        root[EncryptedEnvelope.payloadKey] = nil
        let plaintext: [String: RichPushJSONValue]
        do {
            let envelope = try EncryptedEnvelope(json: enc)
            plaintext = try PayloadCipher.decrypt(envelope, keys: keys, pushID: clearPushID(in: .object(root), paths: pushIDKeyPaths))
        } catch {
            return DecryptedPayload(payload: .object(root), wasEncrypted: true, error: error)
        }
        // Only what the key authenticated is content: the clear alert keeps its generic text.
        var aps = root["aps"]?.objectValue ?? [:]
        var alert: [String: RichPushJSONValue] = [:]
        switch aps["alert"] {
        case .object(let existing): alert = existing.filter { Self.alertKeys.contains($0.key) }
        case .string(let body): alert["body"] = .string(body)
        default: break
        }
        for (key, value) in plaintext where Self.alertKeys.contains(key) {
            if case .string = value { alert[key] = value }
        }
        aps["alert"] = .object(alert)
        var opened: RichPushJSONValue = .object(["aps": .object(aps)])
        // The clear push id stays where it was (receipts are counted under it).
        for path in pushIDKeyPaths { copy(path.components[...], from: .object(root), into: &opened) }
        guard var result = opened.objectValue else { return DecryptedPayload(payload: opened, wasEncrypted: true, error: nil) }
        for (key, value) in plaintext where !Self.alertKeys.contains(key) && key != "aps" && key != EncryptedEnvelope.payloadKey {
            result[key] = value
        }
        return DecryptedPayload(payload: .object(result), wasEncrypted: true, error: nil)
    }

    /// The push id a version-2 envelope in `payload` is bound to: the first along `paths`, a
    /// non-empty string as it is or an integer in decimal.
    ///
    /// - Parameters:
    ///   - payload: the payload (its clear part).
    ///   - paths: the push id key paths, in order.
    /// - Returns: the push id, or `nil` when the payload has none.
    public static func clearPushID(in payload: RichPushJSONValue, paths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultPushIDKeyPaths) -> String? {
        for path in paths {
            switch path.lookup(in: payload) {
            case .string(let s)? where !s.isEmpty: return s.value
            case .number(let n)? where n.isIntegerLiteral: return n.text
            default: continue
            }
        }
        return nil
    }

    /// Copies the value at `rest` (found as `RichPushPayloadKeyPath.lookup` finds it: longest literal
    /// key first) from `source` into `target`, creating the objects on the way.
    private static func copy(_ rest: ArraySlice<String>, from source: RichPushJSONValue, into target: inout RichPushJSONValue) {
        guard !rest.isEmpty, case .object(let object) = source, case .object(var into) = target else { return }
        var end = rest.endIndex
        while end > rest.startIndex {
            let key = rest[rest.startIndex..<end].joined(separator: ".")
            if let child = object[key], RichPushPayloadKeyPath(rest[end...].joined(separator: ".")).lookup(in: child) != nil {
                if end == rest.endIndex {
                    into[key] = child
                } else {
                    var next = into[key] ?? .object([:])
                    copy(rest[end...], from: child, into: &next)
                    into[key] = next
                }
                target = .object(into)
                return
            }
            end -= 1
        }
    }
}
