import Foundation

/// An action button described in the payload, as plain values; the bridge maps it to
/// `UNNotificationAction` (or `UNTextInputNotificationAction` when it has a text input).
///
/// Payload form (an element of the top-level `buttons` array):
/// ```json
/// {"id": "reply", "title": "Reply", "destructive": false, "foreground": true,
///  "auth": false, "icon": "arrowshape.turn.up.left",
///  "input": {"button": "Send", "placeholder": "Your message"}}
/// ```
public struct RichPushButton: Sendable, Equatable, Codable {
    /// Longest `id` and `title`, in characters (our bound; titles beyond ~30 are truncated on screen).
    public static let maximumTextLength = 64

    /// A text field shown when the button is tapped.
    public struct TextInput: Sendable, Equatable, Codable {
        /// The send button's title (`textInputButtonTitle`).
        public var buttonTitle: String
        /// The field's placeholder (`textInputPlaceholder`).
        public var placeholder: String

        /// Makes a text input.
        /// - Parameters:
        ///   - buttonTitle: the send button's title.
        ///   - placeholder: the placeholder.
        public init(buttonTitle: String, placeholder: String) {
            self.buttonTitle = buttonTitle
            self.placeholder = placeholder
        }
    }

    /// The action identifier the app receives in `UNNotificationResponse.actionIdentifier`.
    public var identifier: String
    /// The button title.
    public var title: String
    /// Shown in red (`UNNotificationActionOptions.destructive`).
    public var destructive: Bool
    /// Opens the app (`.foreground`).
    public var foreground: Bool
    /// Requires an unlocked device (`.authenticationRequired`).
    public var authenticationRequired: Bool
    /// An SF Symbols name for `UNNotificationActionIcon(systemImageName:)` (iOS 15 and later;
    /// ignored before).
    public var icon: String?
    /// A text field, making this a `UNTextInputNotificationAction`.
    public var textInput: TextInput?

    /// Makes a button.
    /// - Parameters:
    ///   - identifier: the action identifier.
    ///   - title: the title.
    ///   - destructive: shown in red.
    ///   - foreground: opens the app.
    ///   - authenticationRequired: requires an unlocked device.
    ///   - icon: an SF Symbols name (iOS 15+).
    ///   - textInput: a text field.
    public init(
        identifier: String, title: String, destructive: Bool = false, foreground: Bool = false,
        authenticationRequired: Bool = false, icon: String? = nil, textInput: TextInput? = nil
    ) {
        self.identifier = identifier
        self.title = title
        self.destructive = destructive
        self.foreground = foreground
        self.authenticationRequired = authenticationRequired
        self.icon = icon
        self.textInput = textInput
    }

    /// Reads one element of the `buttons` array.
    ///
    /// - Parameters:
    ///   - json: the element.
    ///   - index: its position, for messages.
    /// - Throws: `PayloadOptionError` `invalid_buttons` naming the position and the key.
    @_spi(RichPushInternal)
    public init(json: RichPushJSONValue, index: Int) throws(PayloadOptionError) {
        guard let object = json.objectValue else {
            throw PayloadOptionError(.invalidButtons, "buttons[\(index)] must be an object")
        }
        func text(_ key: String, required: Bool) throws(PayloadOptionError) -> String? {
            guard let value = object[key] else {
                if required { throw PayloadOptionError(.invalidButtons, "buttons[\(index)].\(key) is missing") }
                return nil
            }
            guard let s = value.stringValue, !s.isEmpty, s.count <= Self.maximumTextLength else {
                throw PayloadOptionError(.invalidButtons, "buttons[\(index)].\(key) must be a string of 1…\(Self.maximumTextLength) characters")
            }
            return s
        }
        func flag(_ key: String) throws(PayloadOptionError) -> Bool {
            guard let value = object[key] else { return false }
            guard case .bool(let b) = value else {
                throw PayloadOptionError(.invalidButtons, "buttons[\(index)].\(key) must be true or false")
            }
            return b
        }
        let identifier = try text("id", required: true) ?? ""
        let title = try text("title", required: true) ?? ""
        var input: TextInput?
        if let inputJSON = object["input"] {
            guard let inputObject = inputJSON.objectValue else {
                throw PayloadOptionError(.invalidButtons, "buttons[\(index)].input must be an object with button and placeholder")
            }
            let button = inputObject["button"]?.stringValue ?? "Send"
            let placeholder = inputObject["placeholder"]?.stringValue ?? ""
            guard button.count <= Self.maximumTextLength, placeholder.count <= Self.maximumTextLength else {
                throw PayloadOptionError(.invalidButtons, "buttons[\(index)].input texts must be at most \(Self.maximumTextLength) characters")
            }
            input = TextInput(buttonTitle: button, placeholder: placeholder)
        }
        self.init(
            identifier: identifier, title: title, destructive: try flag("destructive"), foreground: try flag("foreground"),
            authenticationRequired: try flag("auth"), icon: try text("icon", required: false), textInput: input
        )
    }
}
