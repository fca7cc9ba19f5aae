/// What became of the receipt for one notification.
public struct RichPushReceiptReport: Sendable, Equatable {
    /// The receipt's status.
    public struct Status: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The server answered 2xx.
        public static let sent = Status(rawValue: "sent")
        /// Not sent: refused by ATS, a network error, a timeout, or a non-2xx answer.
        public static let failed = Status(rawValue: "failed")
        /// Not attempted: no receipts URL, or no push id in the payload (`skipReason` says which).
        public static let skipped = Status(rawValue: "skipped")
        /// Still in flight when the content was delivered (deadline or `expire()`);
        /// `PipelineRun.waitUntilSettled()` gives the final status.
        public static let pending = Status(rawValue: "pending")
    }

    /// The status.
    public var status: Status
    /// The receipts server's HTTP status, when it answered.
    public var httpStatus: Int?
    /// The `receipt_id` field sent (one per run for now).
    public var receiptID: String?
    /// Why the receipt failed, in a few words (`connection refused`, `HTTP 404`,
    /// `insecure_scheme: …`); `nil` unless `status` is `failed`.
    public var error: String?
    /// Why no receipt was sent; set when `status` is `skipped` because of the payload or the
    /// configuration (no receipts URL, no push id).
    public var skipReason: RichPushReceiptSkipReason?
    /// The setting to change when that is the fix for a skip or a failure, as
    /// `RichPushConfiguration`'s property (`receiptsURL`, `allowedHTTPHosts`): a program maps it to
    /// its own name for it (`richpush simulate`'s option).
    public var setting: String?

    /// Makes a report.
    /// - Parameters:
    ///   - status: the status.
    ///   - httpStatus: the server's HTTP status, when it answered.
    ///   - receiptID: the `receipt_id` sent.
    ///   - error: why it failed (only for `failed`).
    ///   - skipReason: why it was skipped (only for `skipped`).
    ///   - setting: the setting to change, when that is the fix; `skipReason`'s by default.
    public init(
        status: Status, httpStatus: Int? = nil, receiptID: String? = nil, error: String? = nil, skipReason: RichPushReceiptSkipReason? = nil,
        setting: String? = nil
    ) {
        self.status = status
        self.httpStatus = httpStatus
        self.receiptID = receiptID
        self.error = error
        self.skipReason = skipReason
        self.setting = setting ?? skipReason?.setting
    }

    /// No receipt was attempted.
    public static let skipped = RichPushReceiptReport(status: .skipped)
}
