import Foundation
import RichPushCore

/// One webhook event: `{"id", "type", "created_at", "data"}` as JSON, about one subject (a device
/// token, a push, a campaign), written to the outbox in the transaction of the change it reports
/// and delivered at least once (receivers deduplicate by `id`).
public struct WebhookEvent: Sendable, Equatable {
    /// Unique: `evt_` and 32 lowercase hex digits (128 random bits). A redelivery carries the same id.
    public var id: String
    /// What happened.
    public var type: WebhookEventType
    /// What it is about; the events of one subject reach an endpoint in the order they were
    /// written (the next one waits until the one before is delivered or given up).
    public var subject: String
    /// When it happened, ms since 1970 (`created_at` in RFC 3339, UTC, milliseconds).
    public var createdAtMs: Int
    /// The event's fields (see docs/webhooks.md per type).
    public var data: [String: RichPushJSONValue]

    /// Makes an event with a new id.
    ///
    /// - Parameters:
    ///   - type: what happened.
    ///   - subject: the device token, push id or campaign id it is about.
    ///   - createdAtMs: when, ms since 1970.
    ///   - data: the event's fields.
    public init(type: WebhookEventType, subject: String, createdAtMs: Int, data: [String: RichPushJSONValue]) {
        self.id = Self.newID()
        self.type = type
        self.subject = subject
        self.createdAtMs = createdAtMs
        self.data = data
    }

    /// A new event id: `evt_` + 32 hex digits from `SystemRandomNumberGenerator`.
    ///
    /// - Returns: the id.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let halves = [generator.next() as UInt64, generator.next() as UInt64].map { half in
            let hex = String(half, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        return "evt_" + halves.joined()
    }

    /// The JSON body sent to receivers (keys sorted, no trailing newline): what the signature covers.
    public var body: Data {
        RichPushJSONValue.object([
            "id": .string(id), "type": .string(type.rawValue), "created_at": .string(Self.rfc3339(createdAtMs)), "data": .object(data),
        ]).jsonData(sortedKeys: true)
    }

    /// Milliseconds since 1970 as RFC 3339 in UTC with milliseconds, e.g. `2026-12-01T17:50:58.123Z`.
    ///
    /// - Parameter ms: ms since 1970.
    /// - Returns: the text.
    public static func rfc3339(_ ms: Int) -> String { SQLiteStore.iso8601(ms) }
}
