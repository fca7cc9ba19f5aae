/// A payload-described button, thumbnail option or media list that is malformed; the pipeline
/// ignores that part (the notification is still delivered) and logs the code.
@_spi(RichPushInternal)
public struct PayloadOptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code.
    public struct Code: Sendable, Hashable, CustomStringConvertible, RawRepresentable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// `buttons` is malformed (not an array of objects with `id` and `title`, too many, too long).
        public static let invalidButtons = Code(rawValue: "invalid_buttons")
        /// `thumbnail` is malformed (clip outside 0…1, negative time, wrong types).
        public static let invalidThumbnail = Code(rawValue: "invalid_thumbnail")
    }

    /// The code.
    public let code: Code
    /// What was wrong (names the key, never quotes payload text).
    public let message: String

    /// Makes an error.
    /// - Parameters:
    ///   - code: the code.
    ///   - message: what was wrong.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
