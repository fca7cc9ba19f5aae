import Foundation

/// A random id for this installation, kept in the shared container, from which each push's
/// stable `receipt_id` is derived.
///
/// Stored in `install-id` (a UUID) and created once under `flock` on `install-id.lock`, so the
/// app and concurrent extension processes all read the same id. Deleting the app (and its App
/// Group) makes a new one, as a new installation should.
@_spi(RichPushInternal)
public struct InstallIdentity: Sendable {
    /// The shared directory.
    public let directory: URL

    /// Makes an identity in a directory.
    /// - Parameter directory: the App Group container (here `--state DIR`).
    public init(directory: URL) {
        self.directory = directory
    }

    /// The install id, created on first use.
    ///
    /// - Returns: a UUID string.
    /// - Throws: `RichPushError` `io` when the file cannot be created.
    public func installID() throws -> String {
        let file = directory.appendingPathComponent("install-id")
        if let existing = Self.parse(AtomicFile.read(file)) { return existing }
        return try FileLock(url: directory.appendingPathComponent("install-id.lock")).withLock {
            if let existing = Self.parse(AtomicFile.read(file)) { return existing }
            let id = UUID().uuidString.lowercased()
            try AtomicFile.write(Data(id.utf8), to: file)
            return id
        }
    }

    /// The receipt id of a push on this installation: the first 32 hex digits (128 bits) of
    /// SHA-256(install id + "\n" + push id). Stable across runs and resends, unlinkable across
    /// installations.
    ///
    /// - Parameter pushID: the push id.
    /// - Returns: 32 lowercase hex characters (within `RichPushReceipt.Limits.identifierBytes`).
    /// - Throws: `RichPushError` `io` when the install id cannot be created.
    public func receiptID(for pushID: String) throws -> String {
        Self.receiptID(installID: try installID(), pushID: pushID)
    }

    /// The receipt id for an install id and a push id (see `receiptID(for:)`).
    ///
    /// - Parameters:
    ///   - installID: the install id.
    ///   - pushID: the push id.
    /// - Returns: 32 lowercase hex characters.
    public static func receiptID(installID: String, pushID: String) -> String {
        String(SHA256Hash.hex(installID + "\n" + pushID).prefix(32))
    }

    private static func parse(_ data: Data?) -> String? {
        guard let data else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return UUID(uuidString: text) == nil ? nil : text
    }
}
