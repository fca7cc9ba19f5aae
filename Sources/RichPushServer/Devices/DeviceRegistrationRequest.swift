import Foundation
import RichPushCore
import RichPushProvider

/// A `POST /v1/devices` body: the app registers its device token. The endpoint is called by apps,
/// so every field is hostile input: bounded, typed, and nothing unknown is accepted.
///
/// ```json
/// {"token": "<64+ hex> | <FCM registration token>", "platform": "ios",
///  "provider": "apns" | "fcm", "user_id": "u-42", "user_hash": "<hex HMAC-SHA256>", "app_version": "2.4.1 (812)",
///  "tags": ["beta", "lang:fr"], "recipient_receipts": true}
/// ```
///
/// - `provider` defaults to `apns` for a token of 64 or more hex digits, else `fcm`.
/// - The token follows `DeviceTokenRule` (1…1,024 bytes), as in every other endpoint.
/// - A `null` optional field is the field left out: `"user_id": null` registers the token with no
///   user (signed out).
/// - `tags` (optional) replaces the device's tags for campaign audiences (`DeviceTagRule`: at
///   most 32, each 1…64 bytes of letters, digits and `_ - . :`); left out, the tags stay.
/// - `recipient_receipts` (optional): the app turned per-device receipts on (its receipts name
///   the device, authenticated with the `device_secret` this registration answers), so the
///   device counts in a push's `not_delivered` recipients; left out, it stays as registered.
/// - `user_id` binds the token to a user for `POST /v1/pushes` `"user_ids"`; the server accepts
///   it only with proof (see `UserVerification`): the admin token as `Authorization: Bearer` (the
///   app's backend registers on the user's behalf), or `user_hash` = hex HMAC-SHA256 of the user
///   id under the server's `--device-secret`, computed by the app's backend at login.
public struct DeviceRegistrationRequest: Sendable, Equatable {
    /// The largest body, in bytes (a token of a few hundred bytes plus a few short fields).
    public static let maximumBodyBytes = 8_192
    /// The longest token accepted, in bytes: `DeviceTokenRule.maximumBytes`, as everywhere else.
    public static let maximumTokenBytes = DeviceTokenRule.maximumBytes
    /// The longest user id, in bytes.
    public static let maximumUserIDBytes = 128
    /// The longest app version, in bytes.
    public static let maximumAppVersionBytes = 64
    /// The platforms a registration may name.
    public static let platforms: Set<String> = ["ios", "ipados", "macos", "tvos", "watchos", "visionos", "android", "web"]

    /// The token (APNs hex lower-cased).
    public var token: String
    /// `apns` or `fcm`.
    public var provider: String
    /// One of `platforms`.
    public var platform: String
    /// The user id to bind, if any (still to be verified).
    public var userID: String?
    /// The HMAC proof for `userID`, lower-case hex, if given.
    public var userHash: String?
    /// The app version, if given.
    public var appVersion: String?
    /// The tags, when given (`nil`: keep the registered ones).
    public var tags: [String]?
    /// Whether the app's receipts name the device, when given (`nil`: keep what was registered).
    public var recipientReceipts: Bool?

    /// The fields a registration may have.
    static let fields: Set<String> = ["token", "platform", "provider", "user_id", "user_hash", "app_version", "tags", "recipient_receipts"]

    /// Reads and checks a body.
    ///
    /// - Parameters:
    ///   - body: the request body.
    ///   - contentType: the `Content-Type` header.
    /// - Throws: `HTTPResponseError` 400 naming the field, 415 for a body that is not JSON.
    public init(body: Data, contentType: String?) throws {
        let mime = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mime == nil || mime == "application/json" || mime == "text/plain" || mime?.hasSuffix("+json") == true else {
            throw HTTPResponseError(
                status: 415, code: "unsupported_media_type", field: "Content-Type",
                message: "send the registration as application/json, e.g. {\"token\": \"<hex>\", \"platform\": \"ios\"}")
        }
        let root = try JSONRequestBody.object(body, known: Self.fields, example: "e.g. {\"token\": \"<hex>\", \"platform\": \"ios\"}")
        try self.init(root)
    }

    /// Reads and checks one registration's members (a `POST /v1/devices` body, or an item of
    /// `POST /v1/devices/batch`, whose unknown members the caller refused).
    ///
    /// - Parameter root: the members.
    /// - Throws: `HTTPResponseError` 400 naming the field.
    init(_ root: [String: RichPushJSONValue]) throws {
        // A field that is null is absent (an SDK writes a nil optional so): `"user_id": null` is
        // no user, as when the field is left out.
        func string(_ key: String) throws -> String? {
            guard let value = root[key], value != .null else { return nil }
            guard let s = value.stringValue, !(value.jsonStringValue?.hasUnpairedSurrogates ?? false) else {
                throw HTTPResponseError(field: key, message: "\(key) must be a string")
            }
            return s
        }

        guard let rawToken = try string("token")?.trimmingCharacters(in: .whitespaces), !rawToken.isEmpty else {
            throw HTTPResponseError(
                field: "token",
                message:
                    "token is required: the device token (APNs: hex from didRegisterForRemoteNotificationsWithDeviceToken; FCM: Messaging.messaging().token)")
        }
        let isHex = APNsClient.isWellFormedDeviceToken(rawToken)
        if let given = try string("provider") {
            guard ["apns", "fcm"].contains(given) else { throw HTTPResponseError(field: "provider", message: "provider must be \"apns\" or \"fcm\"") }
            provider = given
        } else {
            provider = isHex ? "apns" : "fcm"
        }
        if provider == "apns" {
            guard isHex else {
                throw HTTPResponseError(
                    field: "token",
                    message:
                        "an APNs device token is an even number (64…400) of hex digits, as the app gets it in didRegisterForRemoteNotificationsWithDeviceToken")
            }
            token = rawToken.lowercased()
        } else {
            guard DeviceTokenRule.isValid(rawToken) else {
                throw HTTPResponseError(field: "token", message: "an FCM registration token is \(DeviceTokenRule.summary)")
            }
            token = rawToken
        }
        let allowed = Self.platforms.sorted().joined(separator: ", ")
        guard let platform = try string("platform") else {
            throw HTTPResponseError(field: "platform", message: "platform is required: one of \(allowed)")
        }
        guard Self.platforms.contains(platform) else {
            throw HTTPResponseError(
                field: "platform", message: "platform \"\(platform.prefix(32))\" is not one of \(allowed) (lower case, exactly as written)")
        }
        self.platform = platform
        if let id = try string("user_id") {
            guard Self.isValidUserID(id) else {
                throw HTTPResponseError(field: "user_id", message: "user_id must be 1…\(Self.maximumUserIDBytes) bytes without control characters")
            }
            // Shown on the dashboard's "who saw it" panel: held to the push ids' rule, so a
            // U+202E cannot make one user read as another there.
            if let bad = IdentifierRule.firstViolation(in: id) {
                throw HTTPResponseError(
                    code: "not_printable", field: "user_id",
                    message:
                        "user_id holds \(IdentifierRule.describe(bad.scalar)), \(bad.kind), at character \(bad.position); a user id must be printable text: no bidirectional-control, invisible format or line-separator characters (a zero width joiner only inside an emoji sequence)"
                )
            }
            userID = id
        }
        if let hash = try string("user_hash") {
            guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }) else {
                throw HTTPResponseError(field: "user_hash", message: "user_hash must be 64 hex digits: HMAC-SHA256 of user_id under the server's device secret")
            }
            guard userID != nil else { throw HTTPResponseError(field: "user_hash", message: "user_hash goes with user_id") }
            userHash = hash.lowercased()
        }
        if let version = try string("app_version") {
            guard !version.isEmpty, version.utf8.count <= Self.maximumAppVersionBytes,
                version.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
            else {
                throw HTTPResponseError(field: "app_version", message: "app_version must be 1…\(Self.maximumAppVersionBytes) bytes without control characters")
            }
            appVersion = version
        }
        if let value = root["tags"], value != .null {
            tags = try DeviceTagRule.tags(value, field: "tags")
        }
        if let value = root["recipient_receipts"], value != .null {
            guard case .bool(let flag) = value else {
                throw HTTPResponseError(
                    field: "recipient_receipts", message: "recipient_receipts must be true or false (whether the app's receipts name the device)")
            }
            recipientReceipts = flag
        }
    }

    /// Whether `id` can be a user id: 1…128 bytes, no control characters.
    /// - Parameter id: the candidate.
    /// - Returns: `true` when it can.
    public static func isValidUserID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maximumUserIDBytes && id.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }
    }
}
