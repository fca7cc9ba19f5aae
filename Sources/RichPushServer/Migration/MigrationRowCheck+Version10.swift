import Foundation
import RichPushCore

/// The server's rules for the rows and columns of schema version 10 (campaign priority, hold-offs,
/// tests and variants, conversions, device credentials, receipts' device references), as
/// `richpush migrate` reads them.
extension MigrationRowCheck {
    /// The variant names the server writes.
    static let variantNames: Set<String> = ["A", "B", "C", "D", "E"]

    /// Why `value` is not a variant name (`A` … `E`), or `nil`.
    static func variantNameProblem(_ value: String?, optional: Bool) -> String? {
        oneOfProblem("variant", value, variantNames, optional: optional)
    }

    /// Why a campaign's version-10 columns (from column `first`: queue_priority, media_report,
    /// test_share, test_window_ms, winner_by, winner, winner_at_ms, attribution_ms, next_claim_ms,
    /// variant_count) break a rule, or `nil`.
    static func campaignVersion10Problem(_ row: SQLiteStatement, first: Int32) -> String? {
        let time = 0...maximumTimeMs
        let report = row.text(first + 1)
        return firstProblem([
            { numberProblem("queue_priority", row.int(first), in: 0...9, optional: false) },
            {
                guard let report else { return nil }
                if report.utf8.count > 1_048_576 { return "media_report is over 1 MB" }
                guard case .array? = try? RichPushJSONValue.parseStrictly(Data(report.utf8)) else { return "media_report is not a JSON array" }
                return nil
            },
            { numberProblem("test_share", row.int(first + 2), in: 1...99) },
            { numberProblem("test_window_ms", row.int(first + 3), in: 0...7 * 86_400_000) },
            { oneOfProblem("winner_by", row.text(first + 4), Set(VariantRanking.Metric.allCases.map(\.rawValue)), optional: true) },
            { variantNameProblem(row.text(first + 5), optional: true) },
            { numberProblem("winner_at_ms", row.int(first + 6), in: time) },
            { numberProblem("attribution_ms", row.int(first + 7), in: 0...720 * 3_600_000) },
            { numberProblem("next_claim_ms", row.int(first + 8), in: time, optional: false) },
            { numberProblem("variant_count", row.int(first + 9), in: 0...5, optional: false) },
        ])
    }

    /// Why a `campaign_variants` row breaks a rule, or `nil`.
    static func campaignVariantProblem(_ row: SQLiteStatement) -> String? {
        firstProblem([
            { campaignIDProblem(text(row, 1, 8)) },
            { variantNameProblem(row.text(2), optional: false) },
            { identifierProblem("push_id", text(row, 3, 9)) },
            { textProblem("title", text(row, 4, 10), maxBytes: RichPushPayloadLinter.maximumPayloadBytes) },
            { jsonObjectProblem("payload", text(row, 5, 11), maxBytes: RichPushPayloadLinter.maximumVoIPPayloadBytes) },
            { numberProblem("weight", row.int(6), in: 0...100, optional: false) },
            { nulProblem("media_report", text(row, 7, 12)) },
        ])
    }

    /// Why a `conversions` row breaks a rule, or `nil`.
    static func conversionProblem(_ row: SQLiteStatement) -> String? {
        let time = 0...maximumTimeMs
        return firstProblem([
            { identifierProblem("push_id", text(row, 1, 10)) },
            { identifierProblem("conversion_id", text(row, 2, 11)) },
            { row.text(3) == nil ? nil : campaignIDProblem(text(row, 3, 12)) },
            { variantNameProblem(row.text(4), optional: true) },
            { row.text(5).map { DeviceCredentialRule.isDeviceID($0) ? nil : "device_id is not a device id" } ?? nil },
            { textProblem("user_id", text(row, 6, 14), maxBytes: DeviceRegistrationRequest.maximumUserIDBytes) },
            { row.double(7).map { $0.isFinite ? nil : "value is not finite" } ?? nil },
            { numberProblem("occurred_at_ms", row.int(8), in: time, optional: false) },
            { numberProblem("recorded_at_ms", row.int(9), in: time, optional: false) },
        ])
    }

    /// Why a device's credential columns (device_id, device_secret, from column `first`) break a
    /// rule, or `nil` (both missing is a device registered before version 10).
    static func deviceCredentialProblem(_ row: SQLiteStatement, first: Int32) -> String? {
        let id = row.text(first), secret = row.text(first + 1)
        guard id != nil || secret != nil else { return nil }
        guard let id, DeviceCredentialRule.isDeviceID(id) else { return "device_id is not a device id (dev_ and 32 lowercase hex digits)" }
        guard let secret, DeviceCredentialRule.isHex(secret, digits: 64, lowercaseOnly: true) else { return "device_secret is not 64 lowercase hex digits" }
        return nil
    }
}
