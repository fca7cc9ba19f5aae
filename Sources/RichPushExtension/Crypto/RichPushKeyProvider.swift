import Foundation

/// Where the extension finds the AES-256 keys that open `enc` envelopes.
///
/// On iOS, keep keys where both the app and its Notification Service Extension can read them:
/// - the keychain, in a shared access group (`keychain-access-groups` entitlement on both
///   targets): `SecItemCopyMatching` with `kSecClass` = `kSecClassGenericPassword`,
///   `kSecAttrAccessGroup` = the group, `kSecAttrAccount` = the `kid`, and
///   `kSecAttrAccessible` = `kSecAttrAccessibleAfterFirstUnlock` (the extension also runs while
///   the device is locked after its first unlock); or
/// - a key file in the App Group container
///   (`FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`), read by
///   `FileKeyProvider`, protected with `FileProtectionType.completeUntilFirstUserAuthentication`.
///
/// The app writes keys when it receives them from its server; the extension only reads.
public protocol RichPushKeyProvider: Sendable {
    /// The 32-byte key for a key id.
    ///
    /// - Parameter kid: the envelope's `kid`.
    /// - Returns: the key, or `nil` when the id is unknown.
    func key(for kid: String) -> Data?
}
