import Foundation

/// The shapes of a device's credential (`POST /v1/devices` answers it; a per-device receipt
/// names the device with it): `device_id` is `dev_` + 32 lowercase hex digits, `device_secret`
/// 64 lowercase hex digits.
enum DeviceCredentialRule {
    /// Whether `text` has a device id's shape.
    ///
    /// - Parameter text: the candidate.
    /// - Returns: `true` for `dev_` + 32 lowercase hex digits.
    static func isDeviceID(_ text: String) -> Bool {
        text.hasPrefix("dev_") && isHex(String(text.dropFirst(4)), digits: 32, lowercaseOnly: true)
    }

    /// Whether `text` is `digits` hex digits.
    ///
    /// - Parameters:
    ///   - text: the candidate.
    ///   - digits: how many.
    ///   - lowercaseOnly: refuse `A`…`F`.
    /// - Returns: `true` when it is.
    static func isHex(_ text: String, digits: Int, lowercaseOnly: Bool = false) -> Bool {
        text.utf8.count == digits
            && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (!lowercaseOnly && (65...70).contains($0)) }
    }
}
