import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushExtension

#if canImport(UserNotifications)
@preconcurrency import UserNotifications
#else
@preconcurrency import UserNotificationsStandIn
#endif

/// Turns payload-described buttons (`RichPushCategoryDescription`, issue 6) into a
/// `UNNotificationCategory` and registers it next to the app's own categories.
///
/// Categories whose identifier starts with `richpush.b.` or ends in `.buttons.<n>` (a button slot
/// of a media category, `image.buttons.2`) are RichPush's (made from a payload's buttons); every
/// other registered category is treated as the app's and never replaced or removed. At most
/// `maximumRichPushCategories` `richpush.b.` ones are kept (Apple documents no limit; ours keeps
/// the registered set small); button slots are bounded by their number. A payload that names
/// `aps.category` gets that identifier; if the app already registers it, the app's category wins.
public enum RichPushCategoryRegistry {
    /// At most 16 `richpush.b.` categories stay registered (our bound).
    public static let maximumRichPushCategories = 16

    /// The action for one button: `UNTextInputNotificationAction` when it has a text input, with
    /// `.destructive`, `.foreground` and `.authenticationRequired` options; on iOS 15 and later the
    /// SF Symbol icon (`UNNotificationActionIcon(systemImageName:)`; the Linux stand-in has no icons).
    ///
    /// - Parameter button: the button.
    /// - Returns: the action.
    public static func makeAction(_ button: RichPushButton) -> UNNotificationAction {
        var options: UNNotificationActionOptions = []
        if button.destructive { options.insert(.destructive) }
        if button.foreground { options.insert(.foreground) }
        if button.authenticationRequired { options.insert(.authenticationRequired) }
        #if canImport(UserNotifications) && !os(macOS)
        if #available(iOS 15.0, *), let name = button.icon {
            let icon = UNNotificationActionIcon(systemImageName: name)
            if let input = button.textInput {
                return UNTextInputNotificationAction(
                    identifier: button.identifier, title: button.title, options: options, icon: icon,
                    textInputButtonTitle: input.buttonTitle, textInputPlaceholder: input.placeholder)
            }
            return UNNotificationAction(identifier: button.identifier, title: button.title, options: options, icon: icon)
        }
        #endif
        if let input = button.textInput {
            return UNTextInputNotificationAction(
                identifier: button.identifier, title: button.title, options: options,
                textInputButtonTitle: input.buttonTitle, textInputPlaceholder: input.placeholder)
        }
        return UNNotificationAction(identifier: button.identifier, title: button.title, options: options)
    }

    /// The category for a description, with its actions in payload order.
    ///
    /// - Parameter description: the category from `RichPushResult.details.category`.
    /// - Returns: the category (no intent identifiers, no options).
    public static func makeCategory(_ description: RichPushCategoryDescription) -> UNNotificationCategory {
        UNNotificationCategory(
            identifier: description.identifier, actions: description.buttons.map(makeAction(_:)),
            intentIdentifiers: [], options: [])
    }

    /// The categories to register: the app's unchanged, then RichPush's with `adding` last, at
    /// most `limit` of RichPush's (the others, by identifier order, dropped).
    ///
    /// - Parameters:
    ///   - existing: the registered categories.
    ///   - adding: the payload's category.
    ///   - limit: how many RichPush categories to keep.
    /// - Returns: the new set.
    public static func merged(
        _ existing: Set<UNNotificationCategory>, adding: RichPushCategoryDescription, limit: Int = maximumRichPushCategories
    ) -> Set<UNNotificationCategory> {
        let ordered = existing.sorted { $0.identifier < $1.identifier }
        let appIDs = Set(ordered.map(\.identifier).filter { !RichPushCategoryDescription.isMadeByRichPush($0) })
        let placeholders = ordered.map { RichPushCategoryDescription(identifier: $0.identifier, buttons: []) }
        let keep = RichPushCategoryDescription.merge(existing: placeholders, appCategoryIdentifiers: appIDs, adding: adding, limit: limit)
        var result: Set<UNNotificationCategory> = []
        for description in keep {
            if let current = ordered.first(where: { $0.identifier == description.identifier }),
                description.identifier != adding.identifier || appIDs.contains(adding.identifier)
            {
                result.insert(current)
            } else {
                result.insert(makeCategory(adding))
            }
        }
        return result
    }

    /// Registers the payload's category with the notification center, merged with what is
    /// registered (call it as soon as the category is known, before delivery); returns once the
    /// new set is registered, with the identifier it was registered under.
    ///
    /// A button slot (`image.buttons.<n>`, see `RichPushConfiguration.buttonCategorySlots`) moves
    /// to the first slot, from the preferred one on, that is free or already holds the same buttons,
    /// so two sets of buttons never share one; when all `slots` hold other buttons, the preferred
    /// slot is replaced. Registrations in this process run one at a time (read, merge, write), so
    /// overlapping requests with different buttons each keep their category.
    ///
    /// - Parameters:
    ///   - description: the category from the pipeline.
    ///   - slots: how many button slots each media category has (`buttonCategorySlots`).
    ///   - center: the notification center (default `.current()`).
    /// - Returns: the identifier registered: `description.identifier`, or the slot it moved to.
    @discardableResult
    public static func register(
        _ description: RichPushCategoryDescription, slots: Int = 4, center: UNUserNotificationCenter = .current()
    ) async -> String {
        let target = CenterReference(center: center)
        return await serial.run {
            let existing = await registeredCategories(of: target)
            var adding = description
            adding.identifier = slotIdentifier(for: description, in: existing, slots: slots)
            target.center.setNotificationCategories(merged(existing, adding: adding))
            return adding.identifier
        }
    }

    /// Where a button slot category goes: the first slot from the preferred one that is free or
    /// holds the same buttons; the preferred one when all are taken. Other identifiers stay.
    static func slotIdentifier(
        for description: RichPushCategoryDescription, in existing: Set<UNNotificationCategory>, slots: Int
    ) -> String {
        guard let (base, preferred) = RichPushCategoryDescription.buttonSlot(of: description.identifier),
            !description.identifier.hasPrefix(RichPushCategoryDescription.derivedPrefix), slots > 0, preferred <= slots
        else { return description.identifier }
        for offset in 0..<slots {
            let identifier = RichPushCategoryDescription.buttonSlotIdentifier(base: base, slot: (preferred - 1 + offset) % slots + 1)
            guard let current = existing.first(where: { $0.identifier == identifier }) else { return identifier }
            if holds(current, description.buttons) { return identifier }
        }
        return description.identifier
    }

    /// Whether a registered category's actions are these buttons (identifier, title, options,
    /// text input; icons cannot be read back and are not compared).
    static func holds(_ category: UNNotificationCategory, _ buttons: [RichPushButton]) -> Bool {
        guard category.actions.count == buttons.count else { return false }
        for (action, button) in zip(category.actions, buttons) {
            let wanted = makeAction(button)
            guard action.identifier == wanted.identifier, action.title == wanted.title, action.options == wanted.options else { return false }
            let input = action as? UNTextInputNotificationAction
            let wantedInput = wanted as? UNTextInputNotificationAction
            guard input?.textInputButtonTitle == wantedInput?.textInputButtonTitle,
                input?.textInputPlaceholder == wantedInput?.textInputPlaceholder
            else { return false }
        }
        return true
    }

    /// The registered categories, through the completion-handler API (Apple's is not annotated
    /// `@Sendable`; its handler runs once, on a queue of the center's).
    private static func registeredCategories(of target: CenterReference) async -> Set<UNNotificationCategory> {
        let box: CategoriesBox = await withCheckedContinuation { continuation in
            target.center.getNotificationCategories { categories in
                continuation.resume(returning: CategoriesBox(categories: categories))
            }
        }
        return box.categories
    }

    /// One registration at a time in this process.
    private static let serial = SerialChain()

    /// The center as the registration task holds it.
    ///
    /// `@unchecked Sendable`: Apple documents `UNUserNotificationCenter` as thread-safe; the
    /// stand-in keeps its state behind a lock.
    private struct CenterReference: @unchecked Sendable {
        let center: UNUserNotificationCenter
    }

    /// The categories handed from the center's callback to the registration task.
    ///
    /// `@unchecked Sendable`: an immutable set of immutable `UNNotificationCategory` objects,
    /// read by the task only after the callback has resumed it.
    private struct CategoriesBox: @unchecked Sendable {
        let categories: Set<UNNotificationCategory>
    }
}

/// Runs async operations one after another, in the order they were submitted.
///
private final class SerialChain: Sendable {
    /// The last submitted task.
    private let tail = Locked<Task<Void, Never>?>(nil)

    /// Runs `operation` after every operation submitted before it; returns its value when it has finished.
    /// - Parameter operation: the work.
    /// - Returns: what `operation` returned.
    func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
        let task: Task<T, Never> = tail.withLock { tail in
            let previous = tail
            let next = Task {
                await previous?.value
                return await operation()
            }
            tail = Task { _ = await next.value }
            return next
        }
        return await task.value
    }
}
