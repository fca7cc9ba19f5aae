import Foundation

/// A notification category as plain values: the identifier and its buttons; the bridge maps it to
/// `UNNotificationCategory` and registers it with `UNUserNotificationCenter.setNotificationCategories`.
public struct RichPushCategoryDescription: Sendable, Equatable, Codable {
    /// The payload key holding the buttons array.
    public static let payloadKey = "buttons"
    /// At most 4 buttons: Apple shows up to four actions in an expanded notification
    /// (UNNotificationCategory documentation).
    public static let maximumButtons = 4
    /// The prefix of derived identifiers (categories RichPush made from payload buttons).
    public static let derivedPrefix = "richpush.b."
    /// What joins a media category and a slot number in a button category's identifier:
    /// `image.buttons.2` (see `RichPushConfiguration.buttonCategorySlots`).
    public static let buttonSlotInfix = ".buttons."

    /// The category identifier (`content.categoryIdentifier`).
    public var identifier: String
    /// The buttons, in payload order.
    public var buttons: [RichPushButton]

    /// Makes a category.
    /// - Parameters:
    ///   - identifier: the identifier.
    ///   - buttons: the buttons.
    public init(identifier: String, buttons: [RichPushButton]) {
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
    @_spi(RichPushInternal)
    public static func parse(payload: RichPushJSONValue, category: String?) throws(PayloadOptionError) -> RichPushCategoryDescription? {
        guard let value = payload[payloadKey] else { return nil }
        guard let array = value.arrayValue else {
            throw PayloadOptionError(.invalidButtons, "buttons must be an array of objects")
        }
        if array.isEmpty { return nil }
        guard array.count <= maximumButtons else {
            throw PayloadOptionError(.invalidButtons, "buttons has \(array.count) elements; at most \(maximumButtons)")
        }
        var buttons: [RichPushButton] = []
        for (index, element) in array.enumerated() {
            let button = try RichPushButton(json: element, index: index)
            guard !buttons.contains(where: { $0.identifier == button.identifier }) else {
                throw PayloadOptionError(.invalidButtons, "buttons[\(index)].id repeats an earlier id")
            }
            buttons.append(button)
        }
        let identifier: String
        if let category, !category.isEmpty {
            identifier = category
        } else {
            identifier = derivedPrefix + String(digest(of: buttons).map { String(format: "%02x", $0) }.joined().prefix(16))
        }
        return RichPushCategoryDescription(identifier: identifier, buttons: buttons)
    }

    /// SHA-256 of the buttons' canonical JSON (sorted keys): equal buttons, equal digest.
    static func digest(of buttons: [RichPushButton]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return [UInt8](SHA256Hash.hash((try? encoder.encode(buttons)) ?? Data()))
    }

    /// The button category identifier for a media category and a slot: `image.buttons.2`.
    ///
    /// - Parameters:
    ///   - base: the media category, e.g. `image`.
    ///   - slot: 1…`RichPushConfiguration.buttonCategorySlots`.
    /// - Returns: the identifier.
    public static func buttonSlotIdentifier(base: String, slot: Int) -> String {
        base + buttonSlotInfix + String(slot)
    }

    /// The slot a set of buttons prefers: 1 + (the first 8 bytes of its digest) mod `slots`, so
    /// the same buttons always ask for the same slot.
    ///
    /// - Parameters:
    ///   - buttons: the buttons.
    ///   - slots: how many slots there are (at least 1).
    /// - Returns: 1…`slots`.
    public static func preferredButtonSlot(for buttons: [RichPushButton], slots: Int) -> Int {
        let value = digest(of: buttons).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return 1 + Int(value % UInt64(max(1, slots)))
    }

    /// Splits a button category identifier into its media category and slot.
    ///
    /// - Parameter identifier: e.g. `image.buttons.2`.
    /// - Returns: `("image", 2)`, or `nil` when the identifier has no `.buttons.<n>` ending.
    public static func buttonSlot(of identifier: String) -> (base: String, slot: Int)? {
        guard let range = identifier.range(of: buttonSlotInfix, options: .backwards) else { return nil }
        let base = String(identifier[..<range.lowerBound])
        let number = identifier[range.upperBound...]
        guard !base.isEmpty, !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber),
            number.first != "0", let slot = Int(number)
        else { return nil }
        return (base, slot)
    }

    /// Whether RichPush made this category from payload buttons (`richpush.b.<hash>` or a button
    /// slot such as `image.buttons.2`), rather than the app.
    ///
    /// - Parameter identifier: a category identifier.
    /// - Returns: `true` for RichPush's categories.
    public static func isMadeByRichPush(_ identifier: String) -> Bool {
        identifier.hasPrefix(derivedPrefix) || buttonSlot(of: identifier) != nil
    }

    /// Merges a payload's category into the categories already registered, keeping the app's own
    /// untouched, every button slot (`image.buttons.2`: bounded by kinds × slots, and a displayed
    /// notification may still use one), and at most `limit` `richpush.b.<hash>` ones (the least
    /// recently added dropped first).
    ///
    /// - Parameters:
    ///   - existing: the registered categories, oldest first (as last returned by this function).
    ///   - appCategoryIdentifiers: the identifiers the app registers itself; never replaced.
    ///   - adding: the payload's category.
    ///   - limit: how many `richpush.b.<hash>` categories to keep (default 16, our bound).
    /// - Returns: the categories to register: the app's, then RichPush's with `adding` last.
    public static func merge(
        existing: [RichPushCategoryDescription], appCategoryIdentifiers: Set<String>,
        adding: RichPushCategoryDescription, limit: Int = 16
    ) -> [RichPushCategoryDescription] {
        let app = existing.filter { appCategoryIdentifiers.contains($0.identifier) }
        var ours = existing.filter { !appCategoryIdentifiers.contains($0.identifier) && $0.identifier != adding.identifier }
        if !appCategoryIdentifiers.contains(adding.identifier) { ours.append(adding) }
        let isSlot = { (d: RichPushCategoryDescription) in !d.identifier.hasPrefix(derivedPrefix) && buttonSlot(of: d.identifier) != nil }
        let slots = ours.filter(isSlot)
        let capped = ours.filter { !isSlot($0) }
        return app + slots + capped.suffix(max(0, limit))
    }
}
