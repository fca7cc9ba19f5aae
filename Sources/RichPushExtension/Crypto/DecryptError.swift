/// Why an encrypted payload (`enc` envelope) could not be decrypted.
///
/// The pipeline reports every one of these as reason `decrypt_failed` and logs the `code` as the
/// sub-reason; the message never contains key material, ciphertext or plaintext.
@_spi(RichPushInternal)
public struct DecryptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable sub-reason.
    public struct Code: Sendable, Hashable, CustomStringConvertible, RawRepresentable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The envelope's `kid` names no key the key provider knows (or there is no key provider).
        public static let unknownKid = Code(rawValue: "unknown_kid")
        /// The GCM tag did not verify: a wrong key, or an altered ciphertext, IV or tag.
        public static let badTag = Code(rawValue: "bad_tag")
        /// The IV is not 12 bytes, the tag is shorter than 16 bytes or the ciphertext is empty.
        public static let truncated = Code(rawValue: "truncated")
        /// `iv`, `ct` or `tag` is not standard base64 (RFC 4648 §4).
        public static let badBase64 = Code(rawValue: "bad_base64")
        /// The decrypted plaintext is not a UTF-8 JSON object.
        public static let badJSON = Code(rawValue: "bad_json")
        /// The envelope's `v` is not a version this code reads (only `1`).
        public static let badVersion = Code(rawValue: "bad_version")
        /// `enc` is not an object, or `kid`, `iv`, `ct` or `tag` is missing or not a string.
        public static let badEnvelope = Code(rawValue: "bad_envelope")
    }

    /// The sub-reason.
    public let code: Code
    /// What was wrong, for a log (no key, ciphertext or plaintext in it).
    public let message: String

    /// Makes an error.
    /// - Parameters:
    ///   - code: the sub-reason.
    ///   - message: what was wrong.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
