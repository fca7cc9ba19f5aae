import Foundation
import RichPushProvider

/// The one rule for a device token wherever the server takes one: `POST /v1/pushes` `tokens`,
/// `POST /v1/devices` `token`, `DELETE /v1/devices/{token}`, the `results[].token` of recorded
/// sends (`POST /v1/pushes/{push_id}/sends`, `richpush record-send`).
///
/// A token is 1…`maximumBytes` bytes of printable ASCII without spaces, quotes or backslashes
/// (surrounding blanks are trimmed first). Apple: device tokens are opaque and of variable
/// length, do not hard-code their size (today 32 bytes, sent as 64 hex digits); Firebase:
/// registration tokens are opaque strings (about 160 characters today). 1,024 bytes leaves either
/// room to grow several times while bounding what an open endpoint stores per device.
///
/// An APNs token is the app's hex encoding of the bytes (`APNsClient.isWellFormedDeviceToken`:
/// an even number of hex digits, 64…400); it is kept in lower case, so one device has one
/// spelling everywhere.
public enum DeviceTokenRule {
    /// The longest token, in bytes (UTF-8, all ASCII).
    public static let maximumBytes = 1_024

    /// What a token is, for error messages.
    public static let summary =
        "1…1024 printable ASCII characters without spaces, quotes or backslashes (the device token: APNs hex, or an FCM registration token)"

    /// Whether `token` (already trimmed) follows the rule.
    /// - Parameter token: the candidate.
    /// - Returns: `true` for 1…`maximumBytes` printable ASCII characters without blanks, `"` or `\`.
    public static func isValid(_ token: String) -> Bool {
        token.utf8.count <= maximumBytes && FCMClient.isPlausibleRegistrationToken(token)
    }

    /// The token as the server keeps it: blanks around it trimmed, an APNs hex token in lower case.
    ///
    /// - Parameters:
    ///   - raw: the token as given.
    ///   - provider: `apns`, `fcm`, or `nil` when not known (a hex token is then taken as APNs).
    /// - Returns: the token, or `nil` when it does not follow the rule.
    public static func canonical(_ raw: String, provider: String?) -> String? {
        let token = raw.trimmingCharacters(in: .whitespaces)
        guard isValid(token) else { return nil }
        return provider != "fcm" && APNsClient.isWellFormedDeviceToken(token) ? token.lowercased() : token
    }
}
