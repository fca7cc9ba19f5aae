import Foundation
import RichPushCore

/// A receipt as the store keeps it: the device's fields plus what the server saw.
public struct StoredReceipt: Sendable, Equatable {
    /// The fields the device sent (bounded by `RichPushReceipt.Limits`).
    public var receipt: RichPushReceipt
    /// The request's `User-Agent`, at most `StoredReceipt.maximumUserAgentBytes` bytes.
    public var userAgent: String?
    /// When the server received it, in milliseconds since 1970 (server clock).
    public var receivedAtMs: Int
    /// The registered device the receipt named, once the server checked its HMAC with the
    /// device's secret (`RichPushReceiptDeviceReference`); `nil` for an anonymous receipt.
    public var deviceID: String?

    /// The longest `User-Agent` kept, in UTF-8 bytes (longer ones are cut; our own bound).
    public static let maximumUserAgentBytes = 256

    /// Makes a stored receipt.
    ///
    /// - Parameters:
    ///   - receipt: the device's fields.
    ///   - userAgent: the request's `User-Agent` (cut to 256 bytes).
    ///   - receivedAtMs: milliseconds since 1970.
    ///   - deviceID: the verified device the receipt named, `nil` for an anonymous one.
    public init(receipt: RichPushReceipt, userAgent: String?, receivedAtMs: Int, deviceID: String? = nil) {
        self.receipt = receipt
        self.deviceID = deviceID
        self.userAgent = userAgent.map { Self.cut($0, toBytes: Self.maximumUserAgentBytes) }
        self.receivedAtMs = receivedAtMs
    }

    private static func cut(_ s: String, toBytes limit: Int) -> String {
        guard s.utf8.count > limit else { return s }
        var out = ""
        var used = 0
        for ch in s {
            let n = String(ch).utf8.count
            if used + n > limit { break }
            out.append(ch)
            used += n
        }
        return out
    }
}
