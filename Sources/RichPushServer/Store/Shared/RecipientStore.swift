import Foundation

/// Who saw a push, per device (schema version 10): receipts that name a registered device, the
/// user behind it, a user's history and its erasure, and conversions. Opt-in and private by
/// default: a receipt names a device only when the app turned it on, and then by the device's
/// `device_id` authenticated with its `device_secret` (`RichPushReceiptDeviceReference`), never by its
/// token. Every store that keeps devices keeps these (SQLite and PostgreSQL return themselves
/// from `ReceiptStore.recipientStore()`).
public protocol RecipientStore: AnyObject, Sendable {
    /// The credential of a registered device, `nil` when no device has that id.
    ///
    /// - Parameter deviceID: the `device_id` a receipt named.
    /// - Returns: the device's id, secret, token and user.
    /// - Throws: `RichPushError` `store`.
    func deviceCredential(deviceID: String) throws -> DeviceCredential?

    /// One page of a push's recipients in one state, in cursor order.
    ///
    /// - Parameter query: the push, the state, the cursor and the page size.
    /// - Returns: the page, with the cursor of the next one.
    /// - Throws: `RichPushError` `store`.
    func recipients(_ query: RecipientQuery) throws -> RecipientPage

    /// Every recipient of a push in one state, in cursor order, handed to `body` one at a time
    /// (memory flat in their number: SQLite steps one statement, PostgreSQL fetches a cursor in
    /// batches); `body` returning `false` stops early.
    ///
    /// - Parameters:
    ///   - query: the push and the state (`after` and `limit` are ignored).
    ///   - body: takes each recipient.
    /// - Returns: how many were handed over.
    /// - Throws: `RichPushError` `store`, or what `body` threw.
    @discardableResult
    func forEachRecipient(_ query: RecipientQuery, _ body: (Recipient) throws -> Bool) throws -> Int

    /// A user's pushes (those sent to one of the user's registered devices), newest first.
    ///
    /// - Parameters:
    ///   - userID: the user.
    ///   - before: the cursor of the previous page's last row, `nil` for the newest.
    ///   - limit: the most rows.
    /// - Returns: the rows and the next page's cursor.
    /// - Throws: `RichPushError` `store`.
    func userPushes(userID: String, before: String?, limit: Int) throws -> UserPushPage

    /// Erases what names the user, in one transaction: their devices (registration, tags, token
    /// states), the per-token send rows and campaign targets of those tokens, the receipts' device
    /// references (the receipts stay counted, anonymous), the conversions attributed to them, and
    /// the outbox rows about their tokens.
    ///
    /// - Parameter userID: the user.
    /// - Returns: what was erased.
    /// - Throws: `RichPushError` `store`.
    func eraseUser(_ userID: String) throws -> UserErasure

    /// Removes the device references of receipts received before `beforeMs` (the receipts stay,
    /// anonymous) and the user and device of conversions recorded before it, at most `limit`
    /// rows per call (one short transaction).
    ///
    /// - Parameters:
    ///   - beforeMs: the retention's bound, ms since 1970.
    ///   - limit: the most rows changed.
    /// - Returns: how many rows changed (0: nothing due).
    /// - Throws: `RichPushError` `store`.
    func clearRecipientReferences(before beforeMs: Int, limit: Int) throws -> Int

    /// The latest send of one of `pushIDs` to the user's (or the device's) registered devices, to
    /// attribute a conversion to.
    ///
    /// - Parameters:
    ///   - pushIDs: the push ids (a campaign's variants, or one push).
    ///   - userID: the user, if the conversion names one.
    ///   - deviceID: the device, if the conversion names one.
    /// - Returns: the push id, when it was sent (ms since 1970) and the device, `nil` when none.
    /// - Throws: `RichPushError` `store`.
    func latestSend(pushIDs: [String], userID: String?, deviceID: String?) throws -> (pushID: String, sentAtMs: Int, deviceID: String?)?

    /// Records a conversion (once per push and `conversion_id`).
    ///
    /// - Parameter conversion: the conversion.
    /// - Returns: `true` when new, `false` for a repeated `conversion_id`.
    /// - Throws: `RichPushError` `store`.
    func recordConversion(_ conversion: Conversion) throws -> Bool

    /// Conversions per push: distinct converters, conversions and their value.
    ///
    /// - Parameter pushIDs: the pushes.
    /// - Returns: the totals of those with conversions.
    /// - Throws: `RichPushError` `store`.
    func conversionTotals(pushIDs: [String]) throws -> [String: ConversionTotals]
}

/// A registered device's credential for authenticated receipts (`POST /v1/devices` answers it).
public struct DeviceCredential: Sendable, Equatable {
    /// `dev_` + 32 hex digits: what a receipt names.
    public var deviceID: String
    /// 64 hex digits: the key of the receipt's HMAC-SHA256.
    public var secret: String
    /// The device token (never sent by the extension).
    public var token: String
    /// The user the device is registered for, if any.
    public var userID: String?

    /// Makes a credential.
    public init(deviceID: String, secret: String, token: String, userID: String?) {
        self.deviceID = deviceID
        self.secret = secret
        self.token = token
        self.userID = userID
    }
}

/// The states `GET /v1/pushes/{id}/recipients?state=` lists.
public enum RecipientState: String, Sendable, CaseIterable {
    /// Devices whose extension reported the push shown (a `delivered` receipt naming the device).
    case delivered
    /// Devices that report per device (`recipient_receipts`), were sent the push and accepted by
    /// the provider, and reported no delivery.
    case notDelivered = "not_delivered"
    /// Devices that reported the push opened.
    case opened
}

/// A page request for a push's recipients.
public struct RecipientQuery: Sendable, Equatable {
    /// The push.
    public var pushID: String
    /// Which recipients.
    public var state: RecipientState
    /// The previous page's `next` cursor, `nil` for the first page.
    public var after: String?
    /// The most rows.
    public var limit: Int

    /// Makes a query.
    public init(pushID: String, state: RecipientState, after: String? = nil, limit: Int = 100) {
        self.pushID = pushID
        self.state = state
        self.after = after
        self.limit = limit
    }
}

/// One recipient of a push.
public struct Recipient: Sendable, Equatable {
    /// The device's `device_id`.
    public var deviceID: String
    /// Its user, when registered for one (and not erased since).
    public var userID: String?
    /// Its platform, when still registered.
    public var platform: String?
    /// When: the first `delivered` (or `opened`) receipt, or the send (`not_delivered`), ms since 1970.
    public var atMs: Int
    /// What the extension delivered (`media_attached`, `text_only`, …) for delivered ones.
    public var outcome: String?
    /// The cursor after this row (opaque).
    public var cursor: String

    /// Makes a recipient.
    public init(deviceID: String, userID: String?, platform: String?, atMs: Int, outcome: String?, cursor: String) {
        self.deviceID = deviceID
        self.userID = userID
        self.platform = platform
        self.atMs = atMs
        self.outcome = outcome
        self.cursor = cursor
    }
}

/// A page of recipients.
public struct RecipientPage: Sendable, Equatable {
    /// The rows.
    public var recipients: [Recipient]
    /// The cursor of the next page, `nil` on the last.
    public var next: String?

    /// Makes a page.
    public init(recipients: [Recipient], next: String?) {
        self.recipients = recipients
        self.next = next
    }
}

/// One push in a user's history (per device of the user it was sent to).
public struct UserPush: Sendable, Equatable {
    /// The push.
    public var pushID: String
    /// Its title, if known.
    public var title: String?
    /// The device it went to.
    public var deviceID: String?
    /// When it was sent, ms since 1970.
    public var sentAtMs: Int
    /// The provider's verdict (`accepted`, `token_inactive`, …).
    public var outcome: String?
    /// When the device reported it shown, if it did (with per-device receipts on).
    public var deliveredAtMs: Int?
    /// When the device reported it opened.
    public var openedAtMs: Int?
    /// The cursor after this row.
    public var cursor: String

    /// Makes a row.
    public init(
        pushID: String, title: String?, deviceID: String?, sentAtMs: Int, outcome: String?, deliveredAtMs: Int?, openedAtMs: Int?, cursor: String
    ) {
        self.pushID = pushID
        self.title = title
        self.deviceID = deviceID
        self.sentAtMs = sentAtMs
        self.outcome = outcome
        self.deliveredAtMs = deliveredAtMs
        self.openedAtMs = openedAtMs
        self.cursor = cursor
    }
}

/// A page of a user's history.
public struct UserPushPage: Sendable, Equatable {
    /// The rows, newest first.
    public var pushes: [UserPush]
    /// The cursor of the next (older) page, `nil` on the last.
    public var next: String?

    /// Makes a page.
    public init(pushes: [UserPush], next: String?) {
        self.pushes = pushes
        self.next = next
    }
}

/// What `DELETE /v1/users/{id}` erased.
public struct UserErasure: Sendable, Equatable {
    /// Device registrations deleted.
    public var devices = 0
    /// Per-token send rows deleted.
    public var sends = 0
    /// Receipts made anonymous (their device reference removed).
    public var receipts = 0
    /// Conversions deleted.
    public var conversions = 0
    /// Campaign targets deleted.
    public var campaignTargets = 0
    /// Webhook outbox rows deleted (events about the user's tokens).
    public var webhookEvents = 0

    /// Nothing erased yet.
    public init() {}
}

/// A conversion (`POST /v1/conversions`), attributed.
public struct Conversion: Sendable, Equatable {
    /// The push (the variant's push id for a campaign with variants).
    public var pushID: String
    /// The caller's id of the conversion (repeated: recorded once), or a generated one.
    public var conversionID: String
    /// The campaign, if the conversion named one.
    public var campaignID: String?
    /// The variant, for a campaign with variants.
    public var variant: String?
    /// The device it is attributed to.
    public var deviceID: String?
    /// The user it is attributed to.
    public var userID: String?
    /// Its value (a purchase amount), if given.
    public var value: Double?
    /// When it happened, ms since 1970.
    public var occurredAtMs: Int
    /// When it was recorded, ms since 1970.
    public var recordedAtMs: Int

    /// Makes a conversion.
    public init(
        pushID: String, conversionID: String, campaignID: String?, variant: String?, deviceID: String?, userID: String?, value: Double?,
        occurredAtMs: Int, recordedAtMs: Int
    ) {
        self.pushID = pushID
        self.conversionID = conversionID
        self.campaignID = campaignID
        self.variant = variant
        self.deviceID = deviceID
        self.userID = userID
        self.value = value
        self.occurredAtMs = occurredAtMs
        self.recordedAtMs = recordedAtMs
    }
}

/// A push's conversions.
public struct ConversionTotals: Sendable, Equatable {
    /// Distinct converters (users, or devices for conversions without a user).
    public var converted = 0
    /// Conversions recorded.
    public var conversions = 0
    /// The sum of their values.
    public var value = 0.0

    /// Makes totals.
    public init(converted: Int = 0, conversions: Int = 0, value: Double = 0) {
        self.converted = converted
        self.conversions = conversions
        self.value = value
    }
}
