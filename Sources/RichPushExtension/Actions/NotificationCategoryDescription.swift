import Foundation

/// A notification category as plain values: the identifier and its buttons; the bridge maps it to
/// `UNNotificationCategory` and registers it with `UNUserNotificationCenter.setNotificationCategories`.
public struct NotificationCategoryDescription: Sendable, Equatable, Codable {
    /// The payload key holding the buttons array.
    public static let payloadKey = "buttons"
    /// At most 4 buttons: Apple shows up to four actions in an expanded notification
    /// (UNNotificationCategory documentation).
    public static let maximumButtons = 4
    /// The prefix of derived identifiers (categories RichPush made from payload buttons).
    public static let derivedPrefix = "richpush.b."

    /// The category identifier (`content.categoryIdentifier`).
    public var identifier: String
    /// The buttons, in payload order.
    public var buttons: [NotificationButton]

    /// Makes a category.
    /// - Parameters:
    ///   - identifier: the identifier.
    ///   - buttons: the buttons.
    public init(identifier: String, buttons: [NotificationButton]) {
        self.identifier = identifier
        self.buttons = buttons
    }

    /// Reads the payload's `buttons` array.
    ///
    /// The identifier is `aps.category` when the payload sets one, else `richpush.b.` + the first
    /// 16 hex digits of the buttons' SHA-256, so the same buttons always reuse one category.
    /// - Parameters:
    ///   - payload: the payload (after decryption).
    ///   - category: the payload's `aps.category`, if any.
    /// - Returns: the category, or `nil` when the payload has no `buttons` key (or an empty array).
    /// - Throws: `PayloadOptionError` `invalid_buttons` when the array is malformed or holds more
    ///   than 4 buttons or two with the same id.
    public static func parse(payload: JSONValue, category: String?) throws(PayloadOptionError) -> NotificationCategoryDescription? {
        guard let value = payload[payloadKey] else { return nil }
        guard let array = value.arrayValue else {
            throw PayloadOptionError(.invalidButtons, "buttons must be an array of objects")
        }
        if array.isEmpty { return nil }
        guard array.count <= maximumButtons else {
            throw PayloadOptionError(.invalidButtons, "buttons has \(array.count) elements; at most \(maximumButtons)")
        }
        var buttons: [NotificationButton] = []
        for (index, element) in array.enumerated() {
            let button = try NotificationButton(json: element, index: index)
            guard !buttons.contains(where: { $0.identifier == button.identifier }) else {
                throw PayloadOptionError(.invalidButtons, "buttons[\(index)].id repeats an earlier id")
            }
            buttons.append(button)
        }
        let identifier: String
        if let category, !category.isEmpty {
            identifier = category
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let canonical = (try? encoder.encode(buttons)) ?? Data()
            identifier = derivedPrefix + String(SHA256Hash.hash(canonical).map { String(format: "%02x", $0) }.joined().prefix(16))
        }
        return NotificationCategoryDescription(identifier: identifier, buttons: buttons)
    }

    /// Merges a payload's category into the categories already registered, keeping the app's own
    /// untouched and at most `limit` RichPush-made ones (the least recently added dropped first).
    ///
    /// - Parameters:
    ///   - existing: the registered categories, oldest first (as last returned by this function).
    ///   - appCategoryIdentifiers: the identifiers the app registers itself; never replaced.
    ///   - adding: the payload's category.
    ///   - limit: how many RichPush-made categories to keep (default 16, our bound).
    /// - Returns: the categories to register: the app's, then RichPush's with `adding` last.
    public static func merge(
        existing: [NotificationCategoryDescription], appCategoryIdentifiers: Set<String>,
        adding: NotificationCategoryDescription, limit: Int = 16
    ) -> [NotificationCategoryDescription] {
        let app = existing.filter { appCategoryIdentifiers.contains($0.identifier) }
        var ours = existing.filter { !appCategoryIdentifiers.contains($0.identifier) && $0.identifier != adding.identifier }
        if !appCategoryIdentifiers.contains(adding.identifier) { ours.append(adding) }
        return app + ours.suffix(max(0, limit))
    }
}
