#if !canImport(Intents)
import Foundation

/// Stand-in for Apple's `INPersonHandle`: how to reach a person (an address, a number, an id).
open class INPersonHandle: NSObject, NSCopying {
    private let storedValue: String?
    private let storedType: INPersonHandleType

    init(storedValue: String?, type: INPersonHandleType) {
        self.storedValue = storedValue
        storedType = type
        super.init()
    }

    /// A handle.
    /// - Parameters:
    ///   - value: the address, number or id.
    ///   - type: what the value is.
    public convenience init(value: String?, type: INPersonHandleType) {
        self.init(storedValue: value, type: type)
    }

    /// The address, number or id.
    open var value: String? { storedValue }
    /// What the value is.
    open var type: INPersonHandleType { storedType }

    /// Returns the receiver: a handle is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}
#endif
