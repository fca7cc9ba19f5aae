import Foundation
import RichPushCore

/// The server's rules applied to each row `richpush migrate` reads from a SQLite file, so that
/// nothing lands in PostgreSQL that `richpush serve` would have refused (a hand-edited or damaged
/// file: a push id with U+202E, an unknown event, negative numbers, an id cut at a NUL byte).
///
/// Receipts go through `ReceiptDecoder`'s own field rules (`IdentifierRule`, `RichPushReceipt.Limits`,
/// the known events, codes of `a-z0-9_`), device tokens through `DeviceTokenRule`, the other ids
/// through `IdentifierRule` and `RichPushReceipt.Limits.identifierBytes`. Counts are bounded by
/// `maximumCount` and times by `maximumTimeMs`, so that no sum of a chunk leaves PostgreSQL's
/// `bigint`. A row that breaks a rule is skipped and reported by its rowid, never copied.
enum MigrationRowCheck {
    /// A count of one source row (`sent`, `accepted`, `skipped`) may be at most 10^12: a thousand
    /// times what one recorded batch may report (`RecordedSendRequest.maximumCount`), and 50,000
    /// such rows (the largest chunk) still sum to far less than 2^63.
    static let maximumCount = 1_000_000_000_000
    /// A time in ms since 1970 may be at most the end of year 9999 (253,402,300,799,999 ms).
    static let maximumTimeMs = 253_402_300_799_999

    /// Why a row was refused.
    struct RowProblem: Error {
        var message: String
    }

    /// A text column's value with its length in bytes as SQLite stores it (`length(CAST(c AS
    /// BLOB))`): a value longer than what was read holds a NUL byte.
    struct Text {
        var value: String?
        var storedBytes: Int?
    }

    /// Why `text` is not a valid id (`IdentifierRule`, 1…`RichPushReceipt.Limits.identifierBytes` bytes), or `nil`.
    static func identifierProblem(_ name: String, _ text: Text, required: Bool = true) -> String? {
        if let problem = nulProblem(name, text) { return problem }
        guard let value = text.value, !value.isEmpty else { return required ? "\(name) is empty" : nil }
        if value.utf8.count > RichPushReceipt.Limits.identifierBytes {
            return "\(name) is \(value.utf8.count) bytes; at most \(RichPushReceipt.Limits.identifierBytes) bytes"
        }
        if let bad = IdentifierRule.firstViolation(in: value) {
            return "\(name) holds \(IdentifierRule.describe(bad.scalar)), \(bad.kind), at character \(bad.position)"
        }
        return nil
    }

    /// Why `text` is not a device token (`DeviceTokenRule`), or `nil`.
    static func tokenProblem(_ text: Text) -> String? {
        if let problem = nulProblem("device_token", text) { return problem }
        guard let value = text.value, DeviceTokenRule.isValid(value) else { return "device_token is not \(DeviceTokenRule.summary)" }
        return nil
    }

    /// Why an optional text of at most `maxBytes` bytes is not acceptable (a NUL, control
    /// characters, too long), or `nil`.
    static func textProblem(_ name: String, _ text: Text, maxBytes: Int) -> String? {
        if let problem = nulProblem(name, text) { return problem }
        guard let value = text.value else { return nil }
        if value.utf8.count > maxBytes { return "\(name) is \(value.utf8.count) bytes; at most \(maxBytes) bytes" }
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "\(name) contains control characters" }
        return nil
    }

    /// Why an integer column is out of `range` (a NULL is fine when `optional`), or `nil`.
    static func numberProblem(_ name: String, _ value: Int?, in range: ClosedRange<Int>, optional: Bool = true) -> String? {
        guard let value else { return optional ? nil : "\(name) is missing" }
        return range.contains(value) ? nil : "\(name) is \(value); expected \(range.lowerBound)…\(range.upperBound)"
    }

    /// A receipt row through the server's receipt rules, or why not.
    static func receipt(
        pushID: Text, event: Text, receiptID: Text, outcome: Text, reason: Text, elapsedMs: Int?, mediaBytes: Int?, mediaType: Text,
        userAgent: Text, receivedAtMs: Int?
    ) -> Result<StoredReceipt, RowProblem> {
        var fields: [String: ReceiptDecoder.RawField] = [:]
        let texts = [
            ("push_id", pushID), ("event", event), ("receipt_id", receiptID), ("outcome", outcome), ("reason", reason), ("media_type", mediaType),
        ]
        for (name, text) in texts {
            if let problem = nulProblem(name, text) { return .failure(RowProblem(message: problem)) }
            if let value = text.value { fields[name] = .text(value) }
        }
        if let elapsedMs { fields["elapsed_ms"] = .text(String(elapsedMs)) }
        if let mediaBytes { fields["media_bytes"] = .text(String(mediaBytes)) }
        if pushID.value?.isEmpty ?? true { return .failure(RowProblem(message: "push_id is empty")) }
        let receipt: RichPushReceipt
        do {
            receipt = try ReceiptDecoder.receipt(from: fields)
        } catch let error as HTTPResponseError {
            return .failure(RowProblem(message: error.message))
        } catch {
            return .failure(RowProblem(message: "\(error)"))
        }
        // A long user agent is cut by `StoredReceipt`, as the server does.
        if let problem = textProblem("user_agent", userAgent, maxBytes: .max)
            ?? numberProblem(
                "received_at_ms", receivedAtMs, in: 0...maximumTimeMs, optional: false)
        {
            return .failure(RowProblem(message: problem))
        }
        return .success(StoredReceipt(receipt: receipt, userAgent: userAgent.value, receivedAtMs: receivedAtMs ?? 0))
    }

    static func nulProblem(_ name: String, _ text: Text) -> String? {
        guard let value = text.value, let stored = text.storedBytes, stored != value.utf8.count else { return nil }
        return "\(name) holds a NUL byte (\(stored) bytes stored, \(value.utf8.count) before the NUL)"
    }

    /// The token states the server records.
    static let states: Set<String> = [PushSendRecord.TokenState.inactive, .bad, .deleted].reduce(into: []) { $0.insert($1.rawValue) }

    /// `length(CAST(c AS BLOB))` for each column, to append to a SELECT list.
    static func lengths(_ columns: [String]) -> String {
        columns.map { ", length(CAST(\($0) AS BLOB))" }.joined()
    }

    /// Column `i` as text with its stored byte length from column `length`.
    static func text(_ row: SQLiteStatement, _ i: Int32, _ length: Int32) -> Text {
        Text(value: row.text(i), storedBytes: row.int(length))
    }

    /// Why a `push` row (columns as `SQLiteToPostgresMigration` selects them) breaks a rule, or `nil`.
    static func pushProblem(_ row: SQLiteStatement) -> String? {
        let count = 0...maximumCount, time = 0...maximumTimeMs
        return identifierProblem("push_id", text(row, 1, 8))
            ?? textProblem("title", text(row, 2, 9), maxBytes: RichPushPayloadLinter.maximumPayloadBytes)
            ?? numberProblem("sent", row.int(3), in: count) ?? numberProblem("accepted", row.int(4), in: count)
            ?? numberProblem("first_sent_at_ms", row.int(5), in: time)
            ?? numberProblem("last_sent_at_ms", row.int(6), in: time) ?? numberProblem("skipped", row.int(7), in: count)
    }

    /// Why a `sendRecord` row (columns as `SQLiteToPostgresMigration` selects them) breaks a rule, or `nil`.
    static func sendRecordProblem(_ row: SQLiteStatement) -> String? {
        let code = RichPushReceipt.Limits.codeBytes
        return identifierProblem("push_id", text(row, 1, 8)) ?? tokenProblem(text(row, 2, 9))
            ?? numberProblem("status", row.int(3), in: 0...999)
            ?? textProblem("reason", text(row, 4, 10), maxBytes: code)
            ?? textProblem("apns_id", text(row, 5, 11), maxBytes: RichPushReceipt.Limits.identifierBytes)
            ?? numberProblem("sent_at_ms", row.int(6), in: 0...maximumTimeMs, optional: false)
            ?? textProblem("outcome", text(row, 7, 12), maxBytes: code)
    }

    /// Why a `tokenState` row (columns as `SQLiteToPostgresMigration` selects them) breaks a rule, or `nil`.
    static func tokenStateProblem(_ row: SQLiteStatement) -> String? {
        let time = 0...maximumTimeMs
        let state = row.text(2) ?? ""
        return tokenProblem(text(row, 1, 6))
            ?? (states.contains(state) ? nil : "state is '\(state.prefix(64))'; expected one of \(states.sorted().joined(separator: ", "))")
            ?? textProblem("reason", text(row, 3, 7), maxBytes: RichPushReceipt.Limits.codeBytes)
            ?? numberProblem("since_ms", row.int(4), in: time)
            ?? numberProblem("updated_at_ms", row.int(5), in: time, optional: false)
    }

    /// Why a `sendBatch` row (columns as `SQLiteToPostgresMigration` selects them) breaks a rule, or `nil`.
    static func sendBatchProblem(_ row: SQLiteStatement) -> String? {
        let count = 0...maximumCount
        return identifierProblem("push_id", text(row, 1, 8))
            ?? identifierProblem("batch_id", text(row, 2, 9))
            ?? identifierProblem("source", text(row, 3, 10))
            ?? numberProblem("sent", row.int(4), in: count) ?? numberProblem("accepted", row.int(5), in: count)
            ?? numberProblem("skipped", row.int(6), in: count)
            ?? numberProblem("recorded_at_ms", row.int(7), in: 0...maximumTimeMs)
    }

    /// Why a `device` row (columns as `SQLiteToPostgresMigration` selects them) breaks a rule, or `nil`.
    static func deviceProblem(_ row: SQLiteStatement) -> String? {
        let provider = row.text(2) ?? "", platform = row.text(3) ?? ""
        return tokenProblem(text(row, 1, 7))
            ?? (["apns", "fcm"].contains(provider) ? nil : "provider is '\(provider.prefix(64))'; expected apns or fcm")
            ?? (DeviceRegistrationRequest.platforms.contains(platform) ? nil : "platform is '\(platform.prefix(64))'; not one the server accepts")
            ?? textProblem("user_id", text(row, 4, 8), maxBytes: DeviceRegistrationRequest.maximumUserIDBytes)
            ?? textProblem("app_version", text(row, 5, 9), maxBytes: DeviceRegistrationRequest.maximumAppVersionBytes)
            ?? numberProblem("registered_at_ms", row.int(6), in: 0...maximumTimeMs, optional: false)
    }
}
