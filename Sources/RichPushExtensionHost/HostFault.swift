#if !canImport(UserNotifications)
/// A way an extension broke iOS's rules, as the host saw it.
public struct HostFault: Sendable, Hashable, CustomStringConvertible {
    /// A stable code.
    public struct Code: Sendable, Hashable, CustomStringConvertible, RawRepresentable {
        /// The code's string.
        public let rawValue: String
        /// Makes a code.
        /// - Parameter rawValue: the string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The string.
        public var description: String { rawValue }

        /// The content handler was called more than once (iOS keeps the first call).
        public static let handlerCalledTwice = Code(rawValue: "handler_called_twice")
        /// The content handler was called after the host gave up and showed the original.
        public static let handlerCalledLate = Code(rawValue: "handler_called_late")
        /// The content handler was never called: the original content was shown.
        public static let handlerNeverCalled = Code(rawValue: "handler_never_called")
        /// An attachment's file could not be moved into the host's store (`attachmentMoveIntoDataStoreFailed`).
        public static let attachmentMoveFailed = Code(rawValue: "attachment_move_failed")
        /// A message intent's avatar is data iOS does not draw (not JPEG, PNG or GIF).
        public static let avatarNotDrawable = Code(rawValue: "avatar_not_drawable")
    }

    /// The code.
    public let code: Code
    /// What happened.
    public let message: String

    /// Makes a fault.
    /// - Parameters:
    ///   - code: the code.
    ///   - message: what happened.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
#endif
