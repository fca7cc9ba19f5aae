#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNUserNotificationCenter`: here only the registered categories, in memory.
///
/// `@unchecked Sendable`: every stored value is behind one lock.
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    private static let shared = UNUserNotificationCenter()
    private let lock = NSLock()
    private var categories: Set<UNNotificationCategory> = []

    private override init() {
        super.init()
    }

    /// The app's notification center.
    /// - Returns: the shared instance.
    open class func current() -> UNUserNotificationCenter { shared }

    /// Registers the app's categories, replacing those registered before.
    /// - Parameter categories: every category the app supports.
    open func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        lock.lock()
        self.categories = categories
        lock.unlock()
    }

    /// Fetches the registered categories.
    /// - Parameter completionHandler: called (on another thread) with the categories.
    open func getNotificationCategories(completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void) {
        DispatchQueue.global().async { completionHandler(self.registeredCategories()) }
    }

    /// The registered categories.
    /// - Returns: every registered category; empty when none were registered.
    open func notificationCategories() async -> Set<UNNotificationCategory> {
        registeredCategories()
    }

    /// The registered categories, read at once (stand-in only, no Apple counterpart): what iOS
    /// looks up when it shows a notification, for hosts that model that moment.
    /// - Returns: every registered category; empty when none were registered.
    public func categoriesAtDisplay() -> Set<UNNotificationCategory> {
        registeredCategories()
    }

    private func registeredCategories() -> Set<UNNotificationCategory> {
        lock.lock()
        defer { lock.unlock() }
        return categories
    }
}
#endif
