import Foundation

/// A message from a person, as a payload names it: what a communication notification shows
/// (the sender's name and avatar, the conversation's name and avatar) instead of the app's icon.
///
/// The payload keys are RichPush's own and vendor-neutral, at configurable key paths
/// (`RichPushPayloadKeyPath.defaultSenderKeyPaths`, `defaultConversationKeyPaths`):
/// ```json
/// {"aps": {"alert": {"title": "Ada", "body": "Tea at five?"}, "mutable-content": 1},
///  "sender": {"id": "u-42", "name": "Ada Lovelace", "avatar": "https://cdn.example.com/ada.jpg"},
///  "conversation": {"id": "c-7", "name": "Engine room", "avatar": "https://cdn.example.com/room.png", "group": true}}
/// ```
/// `sender.id` and `sender.name` are required (a string, or an integer id); `avatar` is an
/// `https` URL; `conversation` is optional (without it the conversation is the one-to-one
/// conversation with the sender, `id` = the sender's); `conversation.group` (default `false`)
/// makes it a group conversation shown under its `name` and `avatar`.
///
/// `RichPush`-prefixed: an extension sees RichPushCore's names through
/// `import RichPushNotificationService`, and an app's own `Message` must not clash with it.
public struct RichPushMessage: Sendable, Equatable {
    /// Who sent the message.
    public struct Sender: Sendable, Equatable {
        /// A stable identifier of the person in the app's own terms (`INPerson.customIdentifier`).
        public var id: String
        /// The name shown (`INPerson.displayName`).
        public var name: String
        /// The avatar's URL as the payload gives it, `nil` for none (the system shows initials).
        public var avatar: String?

        /// Makes a sender.
        /// - Parameters:
        ///   - id: the app's identifier of the person.
        ///   - name: the name shown.
        ///   - avatar: the avatar's URL, if any.
        public init(id: String, name: String, avatar: String? = nil) {
            self.id = id
            self.name = name
            self.avatar = avatar
        }
    }

    /// The conversation the message belongs to.
    public struct Conversation: Sendable, Equatable {
        /// A stable identifier of the conversation (`INSendMessageIntent.conversationIdentifier`).
        public var id: String
        /// The conversation's name (a group's name, shown as the title), `nil` for none.
        public var name: String?
        /// The group's avatar URL, `nil` for none.
        public var avatar: String?
        /// Whether it is a group conversation (several people) rather than one-to-one.
        public var isGroup: Bool

        /// Makes a conversation.
        /// - Parameters:
        ///   - id: the app's identifier of the conversation.
        ///   - name: its name, if any.
        ///   - avatar: the group's avatar URL, if any.
        ///   - isGroup: a group conversation (default `false`).
        public init(id: String, name: String? = nil, avatar: String? = nil, isGroup: Bool = false) {
            self.id = id
            self.name = name
            self.avatar = avatar
            self.isGroup = isGroup
        }
    }

    /// Something wrong with the payload's `sender` or `conversation`.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The key path it is about, e.g. `sender.id`.
        public var keyPath: String
        /// What is wrong and what to write instead.
        public var message: String
        /// `true`: the message cannot be shown as one (the notification falls back to the normal
        /// one); `false`: it can, but probably not as meant.
        public var isError: Bool

        /// Makes a problem.
        /// - Parameters:
        ///   - keyPath: the key path it is about.
        ///   - message: what is wrong.
        ///   - isError: whether it stops the message from being shown as one.
        public init(keyPath: String, message: String, isError: Bool) {
            self.keyPath = keyPath
            self.message = message
            self.isError = isError
        }

        public var description: String { "\(keyPath): \(message)" }
    }

    /// What the payload's keys give: the message, or the problems that stop it, or neither.
    public struct Reading: Sendable, Equatable {
        /// The message, `nil` when the payload names no sender or its keys are wrong.
        public var message: RichPushMessage?
        /// Every problem found (errors first); empty when the keys are right.
        public var problems: [Problem]
        /// The key path the sender was found at.
        public var senderKeyPath: RichPushPayloadKeyPath?
    }

    /// Who sent it.
    public var sender: Sender
    /// The conversation: the payload's, or the one-to-one conversation with the sender.
    public var conversation: Conversation

    /// Makes a message.
    /// - Parameters:
    ///   - sender: who sent it.
    ///   - conversation: the conversation; `nil` for the one-to-one conversation with the sender.
    public init(sender: Sender, conversation: Conversation? = nil) {
        self.sender = sender
        self.conversation = conversation ?? Conversation(id: sender.id)
    }

    /// The payload's `sender` object: `{"id", "name", "avatar"?}`.
    public var senderJSON: RichPushJSONValue {
        var object: [String: RichPushJSONValue] = ["id": .string(sender.id), "name": .string(sender.name)]
        if let avatar = sender.avatar { object["avatar"] = .string(avatar) }
        return .object(object)
    }

    /// The payload's `conversation` object, `nil` when it is the default one-to-one conversation
    /// with the sender (nothing to write): `{"id", "name"?, "avatar"?, "group"?}`.
    public var conversationJSON: RichPushJSONValue? {
        let c = conversation
        guard c.isGroup || c.id != sender.id || c.name != nil || c.avatar != nil else { return nil }
        var object: [String: RichPushJSONValue] = ["id": .string(c.id)]
        if let name = c.name { object["name"] = .string(name) }
        if let avatar = c.avatar { object["avatar"] = .string(avatar) }
        if c.isGroup { object["group"] = .bool(true) }
        return .object(object)
    }

    /// The longest identifier or name kept, in UTF-8 bytes (our bound: a payload is at most 4096
    /// bytes, Apple's limit; a longer value is a mistake, not a name).
    public static let maximumFieldBytes = 512

    /// Reads the message a payload names.
    ///
    /// - Parameters:
    ///   - payload: the payload (after decryption).
    ///   - senderKeyPaths: where `sender` may be, tried in order (the first that holds a value).
    ///   - conversationKeyPaths: where `conversation` may be.
    /// - Returns: the message (or `nil` when no sender is named, or its keys are wrong) and the problems.
    public static func read(
        from payload: RichPushJSONValue, senderKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultSenderKeyPaths,
        conversationKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultConversationKeyPaths
    ) -> Reading {
        guard let (senderPath, senderValue) = first(senderKeyPaths, in: payload) else {
            if let (path, _) = first(conversationKeyPaths, in: payload) {
                let problem = Problem(
                    keyPath: path.description, message: "a conversation is named but no sender (looked at \(list(senderKeyPaths))); add sender {id, name}",
                    isError: true)
                return Reading(message: nil, problems: [problem], senderKeyPath: nil)
            }
            return Reading(message: nil, problems: [], senderKeyPath: nil)
        }
        var problems: [Problem] = []
        let sender = readSender(senderValue, at: senderPath.description, problems: &problems)
        var conversation: Conversation?
        if let (path, value) = first(conversationKeyPaths, in: payload) {
            conversation = readConversation(value, at: path.description, problems: &problems)
        }
        let hasError = problems.contains(where: \.isError)
        let message = !hasError ? sender.map { RichPushMessage(sender: $0, conversation: conversation) } : nil
        return Reading(message: message, problems: problems.filter(\.isError) + problems.filter { !$0.isError }, senderKeyPath: senderPath)
    }

    private static func first(_ paths: [RichPushPayloadKeyPath], in payload: RichPushJSONValue) -> (RichPushPayloadKeyPath, RichPushJSONValue)? {
        for path in paths {
            if let value = path.lookup(in: payload), value != .null { return (path, value) }
        }
        return nil
    }

    private static func list(_ paths: [RichPushPayloadKeyPath]) -> String { paths.map(\.description).joined(separator: ", ") }

    private static func readSender(_ value: RichPushJSONValue, at path: String, problems: inout [Problem]) -> Sender? {
        guard let object = value.objectValue else {
            problems.append(
                Problem(
                    keyPath: path, message: "`\(path)` must be an object {\"id\", \"name\", \"avatar\"}, not \(describe(value))", isError: true))
            return nil
        }
        let id = identifier(object["id"], at: path + ".id", problems: &problems)
        let name = text(object["name"], at: path + ".name", required: true, problems: &problems)
        let avatar = avatarURL(object["avatar"], at: path + ".avatar", problems: &problems)
        guard let id, let name else { return nil }
        return Sender(id: id, name: name, avatar: avatar)
    }

    private static func readConversation(_ value: RichPushJSONValue, at path: String, problems: inout [Problem]) -> Conversation? {
        guard let object = value.objectValue else {
            problems.append(
                Problem(
                    keyPath: path, message: "`\(path)` must be an object {\"id\", \"name\", \"avatar\", \"group\"}, not \(describe(value))",
                    isError: true))
            return nil
        }
        let id = identifier(object["id"], at: path + ".id", problems: &problems)
        let name = text(object["name"], at: path + ".name", required: false, problems: &problems)
        let avatar = avatarURL(object["avatar"], at: path + ".avatar", problems: &problems)
        var isGroup = false
        switch object["group"] {
        case nil, .null?: break
        case .bool(let flag)?: isGroup = flag
        case let other?:
            problems.append(Problem(keyPath: path + ".group", message: "`group` must be true or false, not \(describe(other))", isError: true))
        }
        if isGroup && name == nil {
            problems.append(
                Problem(
                    keyPath: path + ".name", message: "a group conversation has no `name`; iOS then shows no group name (add the group's name)",
                    isError: false))
        }
        if !isGroup && avatar != nil {
            problems.append(
                Problem(
                    keyPath: path + ".avatar",
                    message: "`avatar` of a one-to-one conversation is not shown (the sender's avatar is); set \"group\": true for a group",
                    isError: false))
        }
        guard let id else { return nil }
        return Conversation(id: id, name: name, avatar: avatar, isGroup: isGroup)
    }

    private static func identifier(_ value: RichPushJSONValue?, at path: String, problems: inout [Problem]) -> String? {
        switch value {
        case .string(let s)?:
            return text(.string(s), at: path, required: true, problems: &problems)
        case .number(let n)? where n.isIntegerLiteral:
            return n.text
        case nil, .null?:
            problems.append(Problem(keyPath: path, message: "`\(path)` is missing; give the app's stable id (a string)", isError: true))
            return nil
        case let other?:
            problems.append(Problem(keyPath: path, message: "`\(path)` must be a string, not \(describe(other))", isError: true))
            return nil
        }
    }

    private static func text(_ value: RichPushJSONValue?, at path: String, required: Bool, problems: inout [Problem]) -> String? {
        switch value {
        case .string(let s)?:
            let trimmed = s.value.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty {
                if required { problems.append(Problem(keyPath: path, message: "`\(path)` is empty", isError: true)) }
                return nil
            }
            if trimmed.utf8.count > maximumFieldBytes {
                problems.append(
                    Problem(keyPath: path, message: "`\(path)` is \(trimmed.utf8.count) bytes, over RichPush's \(maximumFieldBytes)", isError: true))
                return nil
            }
            return trimmed
        case nil, .null?:
            if required { problems.append(Problem(keyPath: path, message: "`\(path)` is missing", isError: true)) }
            return nil
        case let other?:
            problems.append(Problem(keyPath: path, message: "`\(path)` must be a string, not \(describe(other))", isError: true))
            return nil
        }
    }

    /// An avatar URL: a string with an http(s) scheme and a host (an `http` URL is kept here and
    /// refused by App Transport Security when fetched, unless the host is allowed).
    private static func avatarURL(_ value: RichPushJSONValue?, at path: String, problems: inout [Problem]) -> String? {
        switch value {
        case nil, .null?:
            return nil
        case .string(let s)?:
            let trimmed = s.value.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { return nil }
            guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), !(url.host ?? "").isEmpty
            else {
                problems.append(
                    Problem(keyPath: path, message: "`\(path)` \"\(trimmed)\" is not an https URL with a host; the avatar is not shown", isError: false))
                return nil
            }
            return trimmed
        case let other?:
            problems.append(Problem(keyPath: path, message: "`\(path)` must be a URL string, not \(describe(other))", isError: false))
            return nil
        }
    }

    private static func describe(_ value: RichPushJSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return "the boolean \(b)"
        case .number(let n): return "the number \(n)"
        case .string(let s): return "the string \"\(s)\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension RichPushPayloadKeyPath {
    /// Where a message's sender is looked for by default: the top-level `sender` (RichPush's key,
    /// documented in docs/extension.md, "Communication notifications").
    public static let defaultSenderKeyPaths: [RichPushPayloadKeyPath] = ["sender"]
    /// Where a message's conversation is looked for by default: the top-level `conversation`.
    public static let defaultConversationKeyPaths: [RichPushPayloadKeyPath] = ["conversation"]
}
