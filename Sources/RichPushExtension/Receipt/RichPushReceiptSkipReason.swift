import Foundation

/// Why no receipt was sent for a notification: a stable code and a sentence on what to do.
///
/// Shown by `richpush simulate` (summary and `--json`), in the extension's log line
/// (`receipt_skip`) and in `RichPushReceiptReport.skipReason`.
public struct RichPushReceiptSkipReason: Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable code.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No receipts URL is configured (`ReceiptsURL` in the Info.plist, `RichPushConfiguration.receiptsURL`).
        public static let noReceiptsURL = Code(rawValue: "no_receipts_url")
        /// No push id along the configured key paths.
        public static let noPushID = Code(rawValue: "no_push_id")
        /// The vendor's id names one delivery, not the message (Customer.io): not a push id.
        public static let perDeliveryID = Code(rawValue: "per_delivery_id")
        /// The vendor's payload carries no message id (Expo).
        public static let vendorHasNoID = Code(rawValue: "vendor_has_no_id")
    }

    /// The code.
    public var code: Code
    /// What was wrong and what to do, e.g. the key paths looked at.
    public var message: String
    /// The setting to give when the fix is one, as `RichPushConfiguration`'s property
    /// (`receiptsURL`): a program maps it to its own name for it (`richpush simulate`'s option).
    public var setting: String?

    /// Makes a reason.
    /// - Parameters:
    ///   - code: the stable code.
    ///   - message: what was wrong and what to do.
    ///   - setting: the `RichPushConfiguration` property to set, when that is the fix.
    public init(_ code: Code, _ message: String, setting: String? = nil) {
        self.code = code
        self.message = message
        self.setting = setting
    }

    public var description: String { "\(code): \(message)" }

    /// Why a receipt would not be sent for this payload, or `nil` when it would be.
    ///
    /// - Parameters:
    ///   - payload: the payload (after decryption), `nil` when unreadable.
    ///   - pushID: the push id found, if any.
    ///   - receiptsURL: the receipts URL configured, if any.
    ///   - pushIDKeyPaths: the key paths the push id was looked for at.
    /// - Returns: the reason. A missing push id comes first (it is the payload's to fix), naming the
    ///   key paths looked at and, for a known vendor, the field to add; then a missing receipts URL.
    public static func check(payload: RichPushJSONValue?, pushID: String?, receiptsURL: URL?, pushIDKeyPaths: [RichPushPayloadKeyPath])
        -> RichPushReceiptSkipReason?
    {
        let noURL = "no receipts URL is configured (RichPush → ReceiptsURL in the extension's Info.plist, or RichPushConfiguration.receiptsURL)"
        let setting = receiptsURL == nil ? "receiptsURL" : nil
        guard pushID == nil else { return receiptsURL == nil ? RichPushReceiptSkipReason(.noReceiptsURL, noURL, setting: setting) : nil }
        let looked = "looked at \(pushIDKeyPaths.map(\.description).joined(separator: ", "))"
        let also = receiptsURL == nil ? "; and \(noURL)" : ""
        if let payload, let vendor = RichPushVendor.recognise(payload), let why = vendor.missingIDExplanation {
            let code: Code = vendor.idKind == .perDelivery ? .perDeliveryID : vendor.idKind == .absent ? .vendorHasNoID : .noPushID
            return RichPushReceiptSkipReason(code, "\(why) (\(looked))\(also)", setting: setting)
        }
        return RichPushReceiptSkipReason(
            .noPushID, "the payload has no push id (\(looked)); add push_id, or name your key in PushIDKeyPaths\(also)", setting: setting)
    }
}
