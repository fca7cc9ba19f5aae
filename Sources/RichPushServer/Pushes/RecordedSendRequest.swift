import Foundation
import RichPushCore
import RichPushProvider

/// A `POST /v1/pushes/{push_id}/sends` body: the sends of a push that another system sent
/// (OneSignal, a plain backend, FCM from elsewhere), so its receipts get a funnel and a display
/// rate. Either totals or per-token outcomes:
///
/// ```json
/// {"batch_id": "onesignal-7f3a", "source": "onesignal", "sent": 1200, "accepted": 1180, "skipped": 0, "title": "…"}
/// {"batch_id": "job-42", "source": "backend", "results": [
///   {"token": "<hex>", "outcome": "accepted"},
///   {"token": "<hex>", "outcome": "token_inactive", "status": 410, "reason": "Unregistered", "inactive_since": 1700000000000},
///   {"token": "<hex>", "outcome": "token_bad", "status": 400, "reason": "BadDeviceToken"}]}
/// ```
///
/// `batch_id` makes the call idempotent: the same batch again is not counted twice.
/// Per-token outcomes also feed the token lifecycle: `token_inactive` and `token_bad` tokens are
/// skipped by later `POST /v1/pushes` until the app registers them again.
public struct RecordedSendRequest: Sendable {
    /// The largest body, in bytes (1 MB: 10,000 results of about 100 bytes; `richpush record-send`
    /// splits longer result files into batches that fit, see `RecordedSendBatches`).
    public static let maximumBodyBytes = PushSendRequest.maximumBodyBytes
    /// The largest count accepted in `sent`, `accepted` or `skipped` (a billion devices).
    public static let maximumCount = 1_000_000_000
    /// The outcomes a result may name (RichPush's own, as `richpush send` prints them).
    public static let outcomes: Set<String> = [
        "accepted", "token_inactive", "token_reregistered", "token_bad", "retries_exhausted", "unknown", "configuration_error", "rejected",
        "not_sent", "skipped",
    ]

    /// The record to store.
    public var record: PushSendRecord

    /// Reads and checks a body.
    ///
    /// - Parameters:
    ///   - pushID: the push (from the path).
    ///   - body: the JSON body.
    ///   - nowMs: now, ms since 1970 (when the batch is recorded).
    /// - Throws: `HTTPResponseError` 400 naming the field, 413 over 10,000 results.
    public init(pushID: String, body: Data, nowMs: Int) throws {
        let example = #"e.g. {"batch_id": "job-42", "source": "backend", "sent": 1200, "accepted": 1180}"#
        let root = try JSONRequestBody.object(body, known: ["batch_id", "source", "sent", "accepted", "skipped", "results", "title"], example: example)
        guard let batchID = root["batch_id"]?.stringValue, Self.isIdentifier(batchID, maxBytes: RichPushReceipt.Limits.identifierBytes) else {
            throw HTTPResponseError(
                field: "batch_id",
                message:
                    "batch_id is required: 1…\(RichPushReceipt.Limits.identifierBytes) bytes of printable text naming this batch of sends (your job or request id), so that a retry is not counted twice"
            )
        }
        var source = "external"
        if let value = root["source"] {
            guard let s = value.stringValue, Self.isSourceName(s) else {
                throw HTTPResponseError(
                    field: "source", message: "source must be 1…32 characters of a-z, 0-9, '-', '_' or '.', e.g. \"onesignal\" or \"backend\"")
            }
            source = s
        }
        var title: String?
        if let value = root["title"] {
            guard let s = value.stringValue, s.utf8.count <= 256 else {
                throw HTTPResponseError(field: "title", message: "title must be a string of at most 256 bytes")
            }
            title = s
        }
        func count(_ key: String) throws -> Int? {
            guard let value = root[key] else { return nil }
            guard let n = value.integerLiteralValue, (0...Self.maximumCount).contains(n) else {
                throw HTTPResponseError(field: key, message: "\(key) must be an integer from 0 to \(Self.maximumCount)")
            }
            return n
        }
        let sent = try count("sent"), accepted = try count("accepted"), skipped = try count("skipped")
        var tokens: [PushSendRecord.TokenResult] = []
        var counts: PushSendRecord.Counts?
        if let value = root["results"] {
            guard sent == nil, accepted == nil, skipped == nil else {
                throw HTTPResponseError(field: "results", message: "give either results (per token) or sent/accepted counts, not both")
            }
            let list = try JSONRequestBody.list(
                value, field: "results", maximum: PushSendRequest.maximumTokens, expected: "a non-empty array of {\"token\", \"outcome\"}",
                split: "send several batches (each with its own batch_id)")
            var seen = Set<String>()
            for (index, item) in list.enumerated() {
                tokens.append(try Self.result(item, index: index, nowMs: nowMs))
                guard seen.insert(tokens[tokens.count - 1].deviceToken).inserted else {
                    throw HTTPResponseError(field: "results", message: "results[\(index)]: the token appears twice in this batch")
                }
            }
        } else {
            guard let sent, let accepted else {
                throw HTTPResponseError(
                    field: sent == nil ? "sent" : "accepted", message: "give sent and accepted (counts), or results (per token), \(example)")
            }
            guard accepted <= sent else {
                throw HTTPResponseError(field: "accepted", message: "accepted (\(accepted)) cannot be more than sent (\(sent))")
            }
            counts = PushSendRecord.Counts(sent: sent, accepted: accepted, skipped: skipped ?? 0)
        }
        record = PushSendRecord(pushID: pushID, sentAtMs: nowMs, title: title, tokens: tokens, source: source, batchID: batchID, reportedCounts: counts)
    }

    /// One entry of `results`.
    private static func result(_ item: RichPushJSONValue, index: Int, nowMs: Int) throws -> PushSendRecord.TokenResult {
        let field = "results[\(index)]"
        guard let object = item.objectValue else { throw HTTPResponseError(field: "results", message: "\(field) must be an object {\"token\", \"outcome\"}") }
        let known: Set<String> = ["token", "outcome", "status", "reason", "inactive_since", "message_id"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw HTTPResponseError(
                field: "results", message: "\(field): unknown field '\(unknown.prefix(64))'; the fields are \(known.sorted().joined(separator: ", "))")
        }
        guard let token = object["token"]?.stringValue.flatMap({ DeviceTokenRule.canonical($0, provider: nil) }) else {
            throw HTTPResponseError(field: "results", message: "\(field).token is not a device token: \(DeviceTokenRule.summary)")
        }
        guard let outcome = object["outcome"]?.stringValue, outcomes.contains(outcome) else {
            throw HTTPResponseError(field: "results", message: "\(field).outcome must be one of \(outcomes.sorted().joined(separator: ", "))")
        }
        var status: Int?
        if let value = object["status"], value != .null {
            guard let n = value.integerLiteralValue, (100...599).contains(n) else {
                throw HTTPResponseError(field: "results", message: "\(field).status must be an HTTP status (100…599) or null")
            }
            status = n
        }
        var reason: String?
        if let value = object["reason"], value != .null {
            guard let s = value.stringValue, !s.isEmpty, s.utf8.count <= 64, s.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw HTTPResponseError(
                    field: "results", message: "\(field).reason must be the provider's reason code (≤ 64 printable ASCII), e.g. Unregistered")
            }
            reason = s
        }
        var messageID: String?
        if let value = object["message_id"], value != .null {
            guard let s = value.stringValue, s.utf8.count <= 256 else {
                throw HTTPResponseError(field: "results", message: "\(field).message_id must be a string of at most 256 bytes")
            }
            messageID = s
        }
        var since: Int?
        if let value = object["inactive_since"], value != .null {
            guard outcome == "token_inactive" else {
                throw HTTPResponseError(
                    field: "results",
                    message: "\(field).inactive_since goes with the outcome token_inactive only (APNs' 410 timestamp); this result's outcome is \(outcome)")
            }
            guard let n = value.integerLiteralValue, (0...4_102_444_800_000).contains(n) else {
                throw HTTPResponseError(
                    field: "results",
                    message: "\(field).inactive_since must be an integer of ms since 1970 from 0 to 4102444800000 (2100-01-01), as APNs' 410 timestamp is")
            }
            since = n
        }
        var state: PushSendRecord.TokenState?
        if outcome == "token_inactive" { state = .inactive }
        if outcome == "token_bad" { state = .bad }
        var result = PushSendRecord.TokenResult(
            deviceToken: token, status: status, reason: reason, apnsID: messageID, outcome: outcome, state: state,
            inactiveSinceMs: since ?? (state == .inactive ? nowMs : nil))
        // "status": null says no answer came; without a "status" at all, the outcome says it.
        if object["status"] != nil {
            result.answered = status != nil
        } else {
            result.answered = !["not_sent", "skipped", "configuration_error", "retries_exhausted", "unknown"].contains(outcome)
        }
        return result
    }

    /// Whether `s` is 1…`maxBytes` bytes of printable text (`IdentifierRule`: no control,
    /// bidirectional-control, invisible format or line-separator characters), as push ids are
    /// everywhere else.
    static func isIdentifier(_ s: String, maxBytes: Int) -> Bool {
        !s.isEmpty && s.utf8.count <= maxBytes && IdentifierRule.firstViolation(in: s) == nil
    }

    /// Whether `s` can name a source: 1…32 of `a-z 0-9 - _ .`.
    static func isSourceName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 32 && s.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 || $0 == 95 || $0 == 46 }
    }
}
