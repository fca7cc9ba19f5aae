#if !canImport(UserNotifications)
import Foundation
@_spi(RichPushInternal) internal import RichPushCore

/// Stand-in for Apple's `UNUserNotificationCenter`: here only the registered categories, in memory.
///
/// Not `Sendable`, as Apple's is not (iOS 16 SDK); Apple documents the center as safe to use from
/// any thread, and this one keeps its state behind one lock.
open class UNUserNotificationCenter: NSObject {
    /// `nonisolated(unsafe)`: the class is not `Sendable` (as Apple's), but every stored value
    /// of the one instance is behind its lock.
    nonisolated(unsafe) private static let shared = UNUserNotificationCenter()
    private let categories = Locked<Set<UNNotificationCategory>>([])

    private override init() {
        super.init()
    }

    /// The app's notification center.
    /// - Returns: the shared instance.
    open class func current() -> UNUserNotificationCenter { shared }

    /// Registers the app's categories, replacing those registered before.
    /// - Parameter categories: every category the app supports.
    open func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        self.categories.withLock { $0 = categories }
    }

    /// Fetches the registered categories.
    /// - Parameter completionHandler: called (on another thread) with the categories.
    open func getNotificationCategories(completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void) {
        let categories = registeredCategories()
        let box = CategoriesBox(categories: categories)
        DispatchQueue.global().async { completionHandler(box.categories) }
    }

    /// The registered categories.
    /// - Returns: every registered category; empty when none were registered.
    open func notificationCategories() async -> Set<UNNotificationCategory> {
        registeredCategories()
    }

    /// The registered categories, read at once: what iOS looks up when it shows a notification
    /// (for the Linux host, which plays that moment; not Apple API, so not public).
    package func registeredCategories() -> Set<UNNotificationCategory> {
        categories.withLock { $0 }
    }
}

/// The categories handed to the completion handler on another queue.
///
/// `@unchecked Sendable`: an immutable set of immutable categories, read once by the handler.
private struct CategoriesBox: @unchecked Sendable {
    let categories: Set<UNNotificationCategory>
}
#endif
