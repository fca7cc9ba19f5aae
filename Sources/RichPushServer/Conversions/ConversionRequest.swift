import Foundation
import RichPushCore

/// A `POST /v1/conversions` body, checked.
///
/// ```json
/// {"push_id": "winter-sale" | "campaign_id": "3f0c…", "user_id": "u-42" | "device_id": "dev_…",
///  "value": 19.99, "conversion_id": "order-1234", "occurred_at": "2026-12-02T10:15:00Z"}
/// ```
///
/// Exactly one of `push_id` and `campaign_id`; at least one of `user_id` and `device_id` (the
/// user's devices, or the device, are looked up in the recorded sends); `value` a finite number
/// (a purchase amount, any currency the caller keeps to); `conversion_id` (1…128 printable bytes)
/// makes a retry count once; `occurred_at` (RFC 3339, default: now) is what the attribution window
/// is measured to.
struct ConversionRequest: Sendable {
    /// The push, when named.
    var pushID: String?
    /// The campaign, when named.
    var campaignID: String?
    /// The user.
    var userID: String?
    /// The device.
    var deviceID: String?
    /// The value.
    var value: Double?
    /// The caller's id of the conversion.
    var conversionID: String?
    /// When it happened, ms since 1970 (`nil`: now).
    var occurredAtMs: Int?

    /// Reads a body.
    ///
    /// - Parameter body: the JSON body.
    /// - Throws: `HTTPResponseError` 400 naming the field.
    init(body: Data) throws {
        let root = try JSONRequestBody.object(
            body, known: ["push_id", "campaign_id", "user_id", "device_id", "value", "conversion_id", "occurred_at"],
            example: "e.g. {\"campaign_id\": \"…\", \"user_id\": \"u-42\", \"value\": 19.99}")
        func text(_ key: String) throws -> String? {
            guard let value = root[key], value != .null else { return nil }
            guard let s = value.stringValue, !s.isEmpty else { throw HTTPResponseError(field: key, message: "\(key) must be a non-empty string") }
            return s
        }
        pushID = try text("push_id")
        campaignID = try text("campaign_id")
        guard (pushID == nil) != (campaignID == nil) else {
            throw HTTPResponseError(
                field: pushID == nil ? "push_id" : "campaign_id",
                message: "give exactly one of push_id (a push) and campaign_id (a campaign: its variants are found for you)")
        }
        if let pushID {
            guard pushID.utf8.count <= RichPushReceipt.Limits.identifierBytes, IdentifierRule.firstViolation(in: pushID) == nil else {
                throw HTTPResponseError(field: "push_id", message: "push_id is a printable id of at most \(RichPushReceipt.Limits.identifierBytes) bytes")
            }
        }
        if let campaignID, !CampaignEndpointRules.isCampaignID(campaignID) {
            throw HTTPResponseError(field: "campaign_id", message: "campaign_id is the id POST /v1/campaigns answered (lower-case hex and dashes)")
        }
        userID = try text("user_id")
        deviceID = try text("device_id")
        guard userID != nil || deviceID != nil else {
            throw HTTPResponseError(
                field: "user_id", message: "give user_id (the user POST /v1/devices registered) or device_id (a device's id from its registration)")
        }
        if let userID, !DeviceRegistrationRequest.isValidUserID(userID) {
            throw HTTPResponseError(
                field: "user_id", message: "user_id must be 1…\(DeviceRegistrationRequest.maximumUserIDBytes) bytes without control characters")
        }
        if let deviceID, !DeviceCredentialRule.isDeviceID(deviceID) {
            throw HTTPResponseError(field: "device_id", message: "device_id is dev_ and 32 lowercase hex digits, as POST /v1/devices answered it")
        }
        if let raw = root["value"], raw != .null {
            guard case .number(let n) = raw, let v = Double(n.text), v.isFinite, abs(v) < 1e15 else {
                throw HTTPResponseError(field: "value", message: "value must be a finite number (e.g. 19.99)")
            }
            value = v
        }
        if let id = try text("conversion_id") {
            guard id.utf8.count <= RichPushReceipt.Limits.identifierBytes, IdentifierRule.firstViolation(in: id) == nil else {
                throw HTTPResponseError(
                    field: "conversion_id", message: "conversion_id is a printable id of at most \(RichPushReceipt.Limits.identifierBytes) bytes")
            }
            conversionID = id
        }
        if let raw = try text("occurred_at") {
            guard let ms = RFC3339Time.milliseconds(raw) else {
                throw HTTPResponseError(field: "occurred_at", message: "occurred_at must be an RFC 3339 time with a zone, e.g. \"2026-12-02T10:15:00Z\"")
            }
            occurredAtMs = ms
        }
    }
}

/// The campaign id rule, shared by the campaign endpoints and conversions.
enum CampaignEndpointRules {
    /// Whether `id` has a campaign id's shape: 1…64 lower-case hex digits and dashes.
    static func isCampaignID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || $0 == 45 }
    }
}
