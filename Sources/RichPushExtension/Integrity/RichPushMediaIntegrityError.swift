/// Why RichPush refused a downloaded file before handing it to iOS: its bytes name a format, but
/// the file is cut short or its structure is broken.
public struct RichPushMediaIntegrityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The file ends before the format's structure does (an interrupted download, a server
        /// that sent less than it promised).
        public static let truncated = Code(rawValue: "truncated")
        /// A field the format requires is missing or impossible (zero dimensions, a bad checksum,
        /// a size that points outside the file, no frame sync).
        public static let corrupt = Code(rawValue: "corrupt")
        /// The image declares more pixels than `RichPushMediaIntegrity.maximumPixels` (a pixel flood).
        public static let tooManyPixels = Code(rawValue: "too_many_pixels")
        /// The file could not be read.
        public static let unreadable = Code(rawValue: "unreadable")
    }

    /// The code.
    public let code: Code
    /// What was wrong, naming the format and the place, e.g. `JPEG: no end-of-image marker (FF D9)…`.
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
