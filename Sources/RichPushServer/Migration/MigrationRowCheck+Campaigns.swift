import Foundation
import RichPushCore
import RichPushProvider

/// The server's rules for the rows of campaigns (schema version 7), the webhook outbox (8) and
/// the admitted codes (9), as `richpush migrate` reads them (columns as
/// `SQLiteToPostgresMigration+Campaigns` and `+Webhooks` select them: rowid first).
extension MigrationRowCheck {
    /// The campaign states the server writes.
    static let campaignStates: Set<String> = ["scheduled", "running", "finished", "cancelled"]
    /// The audience kinds (`CampaignAudience.kind`).
    static let audienceKinds: Set<String> = ["tokens", "user_ids", "all", "tags"]
    /// A target's states.
    static let targetStates: Set<String> = ["pending", "in_flight", "done"]
    /// A chunk's states.
    static let chunkStates: Set<String> = ["pending", "leased", "done"]
    /// What a stored webhook delivery may be in (delivered ones are deleted).
    static let outboxStates: Set<String> = ["pending", "failed"]
    /// The longest webhook event body, bytes: the largest event RichPush writes (a
    /// `campaign.finished` with a 4 KB title) is far below it.
    static let maximumEventBodyBytes = 65_536
    /// The longest stored error text (a provider's or a receiver's, as the server cut it), bytes.
    static let maximumErrorBytes = 4_096

    /// Why `value` is not one of `allowed`, or `nil`.
    static func oneOfProblem(_ name: String, _ value: String?, _ allowed: Set<String>, optional: Bool = false) -> String? {
        guard let value else { return optional ? nil : "\(name) is missing" }
        return allowed.contains(value) ? nil : "\(name) is '\(value.prefix(64))'; expected one of \(allowed.sorted().joined(separator: ", "))"
    }

    /// Why `text` is not a campaign id (as the server makes them and `GET /v1/campaigns?before=`
    /// accepts them: 1…64 bytes of `0-9a-f-`), or `nil`.
    static func campaignIDProblem(_ text: Text) -> String? {
        if let problem = nulProblem("campaign_id", text) { return problem }
        guard let value = text.value, (1...64).contains(value.utf8.count),
            value.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || $0 == 45 })
        else { return "campaign_id is not a campaign id (1…64 bytes of 0-9, a-f and -)" }
        return nil
    }

    /// Why a text that may hold line breaks (an error message) is not acceptable: a NUL, or
    /// longer than `maxBytes`; `nil` when fine.
    static func messageProblem(_ name: String, _ text: Text, maxBytes: Int) -> String? {
        if let problem = nulProblem(name, text) { return problem }
        guard let value = text.value, value.utf8.count > maxBytes else { return nil }
        return "\(name) is \(value.utf8.count) bytes; at most \(maxBytes) bytes"
    }

    /// Why a text is not a JSON object of at most `maxBytes` bytes, or `nil`.
    static func jsonObjectProblem(_ name: String, _ text: Text, maxBytes: Int) -> String? {
        if let problem = nulProblem(name, text) { return problem }
        guard let value = text.value else { return "\(name) is missing" }
        if value.utf8.count > maxBytes { return "\(name) is \(value.utf8.count) bytes; at most \(maxBytes) bytes" }
        guard case .object? = try? RichPushJSONValue.parseStrictly(Data(value.utf8)) else { return "\(name) is not a JSON object" }
        return nil
    }

    /// Why a `campaign_targets` row breaks a rule, or `nil`.
    static func campaignTargetProblem(_ row: SQLiteStatement) -> String? {
        let code = RichPushReceipt.Limits.codeBytes
        return firstProblem([
            { campaignIDProblem(text(row, 1, 10)) },
            { numberProblem("chunk", row.int(2), in: 0...maximumCount, optional: false) },
            { tokenProblem(text(row, 3, 11)) },
            { oneOfProblem("provider", row.text(4), ["apns", "fcm"]) },
            { oneOfProblem("state", row.text(5), targetStates) },
            { textProblem("outcome", text(row, 6, 12), maxBytes: code) },
            { numberProblem("status", row.int(7), in: 0...999) },
            { textProblem("reason", text(row, 8, 13), maxBytes: code) },
            { numberProblem("attempts", row.int(9), in: 0...maximumCount, optional: false) },
        ])
    }

    /// Why a `campaign_chunks` row breaks a rule, or `nil`.
    static func campaignChunkProblem(_ row: SQLiteStatement) -> String? {
        campaignIDProblem(text(row, 1, 6))
            ?? numberProblem("chunk", row.int(2), in: 0...maximumCount, optional: false)
            ?? oneOfProblem("state", row.text(3), chunkStates)
            ?? textProblem("owner", text(row, 4, 7), maxBytes: RichPushReceipt.Limits.identifierBytes)
            ?? numberProblem("lease_until_ms", row.int(5), in: 0...maximumTimeMs, optional: false)
    }

    /// Why a `campaigns` row breaks a rule, or `nil`.
    static func campaignProblem(_ row: SQLiteStatement) -> String? {
        let count = 0...maximumCount, time = 0...maximumTimeMs
        let counters = ["targets", "sent", "accepted", "skipped", "failed", "in_flight", "resent_after_crash"]
        let counterProblem = counters.enumerated().lazy.compactMap { numberProblem($1, row.int(Int32(15 + $0)), in: count, optional: false) }.first
        return firstProblem([
            { campaignIDProblem(text(row, 1, 27)) },
            { identifierProblem("push_id", text(row, 2, 28)) },
            { oneOfProblem("state", row.text(3), campaignStates) },
            { textProblem("title", text(row, 4, 29), maxBytes: RichPushPayloadLinter.maximumPayloadBytes) },
            { jsonObjectProblem("payload", text(row, 5, 30), maxBytes: RichPushPayloadLinter.maximumVoIPPayloadBytes) },
            { textProblem("topic", text(row, 6, 31), maxBytes: 255) },
            { textProblem("push_type", text(row, 7, 32), maxBytes: 64) },
            { numberProblem("priority", row.int(8), in: 0...10) },
            { numberProblem("expiration", row.int(9), in: 0...maximumTimeMs / 1000) },
            { textProblem("collapse_id", text(row, 10, 33), maxBytes: APNsNotification.maximumCollapseIDBytes) },
            { oneOfProblem("provider", row.text(11), ["apns", "fcm"], optional: true) },
            { oneOfProblem("audience", row.text(12), audienceKinds) },
            { numberProblem("send_at_ms", row.int(13), in: time, optional: false) },
            { numberProblem("per_minute", row.int(14), in: 1...6_000_000) },
            { counterProblem },
            { numberProblem("created_at_ms", row.int(22), in: time, optional: false) },
            { numberProblem("started_at_ms", row.int(23), in: time) },
            { numberProblem("finished_at_ms", row.int(24), in: time) },
            { messageProblem("last_error", text(row, 25, 34), maxBytes: maximumErrorBytes) },
            { textProblem("idempotency_key", text(row, 26, 35), maxBytes: 1_024) },
        ])
    }

    /// Why a `device_tags` row breaks a rule, or `nil`.
    static func deviceTagProblem(_ row: SQLiteStatement) -> String? {
        if let problem = tokenProblem(text(row, 1, 3)) ?? nulProblem("tag", text(row, 2, 4)) { return problem }
        return DeviceTagRule.isValid(row.text(2) ?? "") ? nil : "tag is not \(DeviceTagRule.summary)"
    }

    /// Why a `webhook_outbox` row breaks a rule, or `nil`.
    static func webhookEventProblem(_ row: SQLiteStatement) -> String? {
        let time = 0...maximumTimeMs
        let endpoint = row.text(1) ?? "", eventID = row.text(2) ?? ""
        let types = Set(WebhookEventType.all.map(\.rawValue))
        return firstProblem([
            { nulProblem("endpoint", text(row, 1, 13)) },
            { (isHex(endpoint, prefix: "whe_", digits: 16) ? nil : "endpoint is not an endpoint key (whe_ and 16 hex digits)") },
            { nulProblem("event_id", text(row, 2, 14)) },
            { (isHex(eventID, prefix: "evt_", digits: 32) ? nil : "event_id is not an event id (evt_ and 32 hex digits)") },
            { oneOfProblem("event_type", row.text(3), types) },
            { textProblem("subject", text(row, 4, 15), maxBytes: 4_096) },
            { jsonObjectProblem("body", text(row, 5, 16), maxBytes: maximumEventBodyBytes) },
            { numberProblem("created_at_ms", row.int(6), in: time, optional: false) },
            { oneOfProblem("state", row.text(7), outboxStates) },
            { numberProblem("attempts", row.int(8), in: 0...maximumCount, optional: false) },
            { numberProblem("next_attempt_ms", row.int(9), in: time, optional: false) },
            { numberProblem("last_status", row.int(10), in: 0...999) },
            { messageProblem("last_error", text(row, 11, 17), maxBytes: maximumErrorBytes) },
            { numberProblem("done_at_ms", row.int(12), in: time) },
        ])
    }

    /// Why a `webhook_endpoints` row breaks a rule, or `nil`.
    static func webhookEndpointProblem(_ row: SQLiteStatement) -> String? {
        let time = 0...maximumTimeMs, count = 0...maximumCount
        return firstProblem([
            { nulProblem("endpoint", text(row, 1, 7)) },
            { (isHex(row.text(1) ?? "", prefix: "whe_", digits: 16) ? nil : "endpoint is not an endpoint key (whe_ and 16 hex digits)") },
            { numberProblem("delivered", row.int(2), in: count, optional: false) },
            { numberProblem("failed", row.int(3), in: count, optional: false) },
            { numberProblem("last_delivered_at_ms", row.int(4), in: time) },
            { messageProblem("last_error", text(row, 5, 8), maxBytes: maximumErrorBytes) },
            { numberProblem("last_error_at_ms", row.int(6), in: time) },
        ])
    }

    /// Why an `admitted_codes` row (scope, kind, code) breaks a rule, or `nil`.
    static func admittedCodeProblem(scope: Text, kind: String?, code: Text) -> String? {
        if let problem = nulProblem("scope", scope) ?? nulProblem("code", code) { return problem }
        if let value = scope.value, !value.isEmpty, let problem = identifierProblem("scope", scope) { return problem }
        if let problem = oneOfProblem("kind", kind, Set(CodeFolding.Kind.allCases.map(\.rawValue))) { return problem }
        guard let value = code.value, (1...RichPushReceipt.Limits.codeBytes).contains(value.utf8.count),
            value.utf8.allSatisfy({ (48...57).contains($0) || (97...122).contains($0) || $0 == 95 })
        else { return "code is not a code (1…\(RichPushReceipt.Limits.codeBytes) bytes of a-z, 0-9 and _)" }
        if let kind = kind.flatMap(CodeFolding.Kind.init(rawValue:)), CodeFolding.isKnown(value, kind) {
            return "code '\(value)' is a known \(kind.rawValue): never admitted"
        }
        return nil
    }

    /// The first problem `checks` find, in order (each runs only when those before found none).
    static func firstProblem(_ checks: [() -> String?]) -> String? {
        for check in checks {
            if let problem = check() { return problem }
        }
        return nil
    }

    private static func isHex(_ value: String, prefix: String, digits: Int) -> Bool {
        guard value.hasPrefix(prefix) else { return false }
        let rest = value.utf8.dropFirst(prefix.utf8.count)
        return rest.count == digits && rest.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
