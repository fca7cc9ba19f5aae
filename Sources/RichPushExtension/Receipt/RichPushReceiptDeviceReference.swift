import Foundation

#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(COpenSSL)
import COpenSSL
#endif

/// Who saw a push, opt-in (per-device receipts, off by default): the device's credential that
/// `POST /v1/devices` answers (`device_id` and `device_secret`), kept in the App Group so the
/// app and the service extension read the same, and what it adds to a receipt: `device_id` and
/// `device_mac`, an HMAC-SHA256 under the secret (never the device token). With the setting off,
/// or no credential saved, receipts stay anonymous.
///
/// The app saves the credential after registering (`save(in:)`); the extension's
/// `RecipientReceipts` setting (`RichPushConfiguration.recipientReceipts`) and the app's own
/// `opened` receipts (`RichPushReceiptDelivery.submit(…, identified: true)`) then stamp each receipt.
public struct RichPushReceiptDeviceReference: Sendable, Equatable {
    /// The file in the App Group that holds the credential (JSON, readable by the app's processes only).
    public static let fileName = "device-credential.json"

    /// The `device_id` the server answered.
    public var deviceID: String
    /// The `device_secret` the server answered (64 hex digits).
    public var secret: String

    /// Makes a reference.
    ///
    /// - Parameters:
    ///   - deviceID: `device_id` from `POST /v1/devices`.
    ///   - secret: `device_secret` from `POST /v1/devices`.
    public init(deviceID: String, secret: String) {
        self.deviceID = deviceID
        self.secret = secret
    }

    /// Stores the credential in the App Group (replacing one stored before).
    ///
    /// - Parameter directory: the App Group container (the pipeline's `stateDirectory`).
    /// - Throws: `RichPushError` `io` when it cannot be written.
    public func save(in directory: URL) throws {
        let json = #"{"device_id":"\#(deviceID)","device_secret":"\#(secret)"}"#
        try AtomicFile.write(Data(json.utf8), to: directory.appendingPathComponent(Self.fileName))
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.appendingPathComponent(Self.fileName).path)
    }

    /// The stored credential, `nil` when none was saved (or the file is not one).
    ///
    /// - Parameter directory: the App Group container.
    /// - Returns: the reference.
    public static func load(from directory: URL) -> RichPushReceiptDeviceReference? {
        guard let data = AtomicFile.read(directory.appendingPathComponent(fileName)),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let id = object["device_id"] as? String, let secret = object["device_secret"] as? String,
            id.hasPrefix("dev_"), secret.utf8.count == 64, secret.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        return RichPushReceiptDeviceReference(deviceID: id, secret: secret)
    }

    /// Forgets the credential (the user signed out, or the app turned per-device receipts off).
    ///
    /// - Parameter directory: the App Group container.
    public static func remove(from directory: URL) {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(fileName))
    }

    /// `receipt` naming this device: `device_id` and `device_mac` set (after its `receipt_id` is final).
    ///
    /// - Parameter receipt: the receipt.
    /// - Returns: the stamped receipt.
    public func stamp(_ receipt: RichPushReceipt) -> RichPushReceipt {
        var out = receipt
        out.deviceID = deviceID
        out.deviceMAC = Self.mac(receipt.deviceMessage, secretHex: secret)
        return out
    }

    /// Lowercase hex HMAC-SHA256 of `message` under the key the 64 hex digits of `secretHex` encode.
    ///
    /// - Parameters:
    ///   - message: what is signed.
    ///   - secretHex: the device secret.
    /// - Returns: 64 hex digits.
    public static func mac(_ message: Data, secretHex: String) -> String {
        var key = [UInt8]()
        var digits = secretHex.utf8.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            key.append(UInt8(nibble(high) << 4 | nibble(low)))
        }
        #if canImport(CryptoKit)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
        return Data(code).map { String(format: "%02x", $0) }.joined()
        #else
        var out = [UInt8](repeating: 0, count: 32)
        var length = 0
        let bytes = [UInt8](message)
        // EVP_Q_mac cannot fail for HMAC-SHA256 on valid buffers; a failure leaves zeros, which the
        // server refuses (the receipt then counts anonymously), and never crashes.
        _ = EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, key, key.count, bytes, bytes.count, &out, out.count, &length)
        return out.map { String(format: "%02x", $0) }.joined()
        #endif
    }

    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: 0
        }
    }
}
