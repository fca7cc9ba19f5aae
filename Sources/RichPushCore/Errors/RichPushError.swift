/// An error with a stable code, a message a person can act on, and the underlying cause.
///
/// Every error RichPush throws is one of these (the swift-nio `FileSystemError` pattern).
public struct RichPushError: Error, Sendable, CustomStringConvertible {
    /// A stable, machine-readable code.
    public struct Code: Sendable, Hashable, CustomStringConvertible, RawRepresentable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Bytes that are not JSON.
        public static let invalidJSON = Code(rawValue: "invalid_json")
        /// A JSON document of the wrong shape.
        public static let invalidPayload = Code(rawValue: "invalid_payload")
        /// A command-line usage error.
        public static let usage = Code(rawValue: "usage")
        /// A file that cannot be read or written.
        public static let io = Code(rawValue: "io")
        /// A configuration value that is missing or wrong.
        public static let configuration = Code(rawValue: "configuration")
    }

    /// The stable code.
    public let code: Code
    /// What went wrong and what to do about it.
    public let message: String
    /// The cause, when another error led to this one.
    public let underlying: (any Error & Sendable)?
    /// The setting the error is about, in plain words (`"database"`, `"migration source"`), when
    /// one is: a program maps it to its own name for that setting (the command line's flag).
    public let setting: String?
    /// The file the error is about, when one is.
    public let path: String?

    /// Makes an error.
    /// - Parameters:
    ///   - code: the stable code.
    ///   - message: what was wrong and what to do.
    ///   - underlying: the cause, if any.
    public init(code: Code, message: String, underlying: (any Error)? = nil) {
        self.init(code: code, message: message, underlying: underlying, setting: nil, path: nil)
    }

    /// Makes an error about a setting or a file.
    /// - Parameters:
    ///   - code: the stable code.
    ///   - message: what was wrong and what to do.
    ///   - underlying: the cause, if any.
    ///   - setting: the setting it is about, in plain words, if any.
    ///   - path: the file it is about, if any.
    public init(code: Code, message: String, underlying: (any Error)? = nil, setting: String?, path: String? = nil) {
        self.code = code
        self.message = message
        self.setting = setting
        self.path = path
        self.underlying = underlying.map { SendableErrorBox(description: String(describing: $0)) }
    }

    public var description: String { message }
}

/// A sendable snapshot of a non-sendable error's description.
struct SendableErrorBox: Error, Sendable, CustomStringConvertible {
    let description: String
}
