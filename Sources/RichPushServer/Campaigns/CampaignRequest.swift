import Foundation
import RichPushCore
import RichPushProvider

/// A `POST /v1/campaigns` body, checked.
///
/// ```json
/// {"audience": {"tokens": ["<hex>", …]} | {"user_ids": ["u-1", …]} | {"all": true, "platform": "ios"}
///              | {"tags": {"any": ["beta", …]}},
///  "provider": "apns" | "fcm", "send_at": "2026-12-02T09:00:00Z", "per_minute": 60000,
///  …the content fields of POST /v1/pushes: "push_id", "payload" | "title"/"body"/"image", "push_type",
///  "priority", "collapse_id", "expiration", "topic"}
/// ```
///
/// The content is checked exactly as `POST /v1/pushes` checks it (`PushSendRequest`: the same
/// lint, the same 400s naming the field), so a campaign sends what a push would.
struct CampaignRequest: Sendable {
    /// The largest body: 100,000 tokens of 64 hex digits are about 6.7 MB, plus the payload.
    static let maximumBodyBytes = 8 * 1_048_576
    /// The most tokens listed in `audience.tokens` (larger audiences: register the devices and
    /// use `all`, `user_ids` or `tags`, which the store snapshots without a list in the request).
    static let maximumTokens = 100_000
    /// The most user ids in `audience.user_ids`.
    static let maximumUserIDs = 10_000
    /// The largest `per_minute`: 6,000,000 (100,000 a second).
    static let maximumPerMinute = 6_000_000
    /// How far ahead `send_at` may be: 366 days.
    static let maximumLeadSeconds = 366 * 86_400
    /// How far in the past `send_at` may be (then the campaign starts at once): 24 h; older is
    /// taken for a mistake.
    static let maximumLagSeconds = 86_400

    /// Who.
    var audience: CampaignAudience
    /// The provider named (`nil`: tokens through the server's default; devices through their own).
    var provider: PushProvider?
    /// The content, checked as `POST /v1/pushes` checks it.
    var content: PushSendRequest
    /// When to start, ms since 1970 (`nil`: now).
    var sendAtMs: Int?
    /// The throttle, sends per minute over all instances.
    var perMinute: Int?

    private static let campaignKeys: Set<String> = ["audience", "send_at", "per_minute"]
    private static let contentKeys: Set<String> = [
        "push_id", "provider", "payload", "title", "subtitle", "body", "image", "media_key", "push_type", "priority", "collapse_id", "expiration", "topic",
    ]

    /// Reads and checks a body.
    ///
    /// - Parameters:
    ///   - body: the JSON body.
    ///   - defaultTopic: the server's `--apns-topic`.
    ///   - nowMs: now, ms since 1970 (for `send_at`'s bounds).
    /// - Throws: `HTTPResponseError` 400 naming the field, 413 `too_many_tokens`.
    init(body: Data, defaultTopic: String?, nowMs: Int) throws {
        let root = try JSONRequestBody.object(
            body, known: Self.campaignKeys.union(Self.contentKeys),
            example: "e.g. {\"audience\": {\"all\": true}, \"title\": \"…\", \"body\": \"…\"}")
        guard let audienceValue = root["audience"] else {
            throw HTTPResponseError(
                field: "audience",
                message:
                    "audience is required: {\"tokens\": [...]}, {\"user_ids\": [...]}, {\"all\": true} (optionally \"platform\": \"ios\") or {\"tags\": {\"any\": [...]}}"
            )
        }
        if let value = root["provider"] {
            guard let name = value.stringValue.flatMap(PushProvider.init(rawValue:)) else {
                throw HTTPResponseError(field: "provider", message: "provider must be \"apns\" or \"fcm\"")
            }
            provider = name
        }
        audience = try Self.audience(audienceValue, provider: provider)

        // The content goes through POST /v1/pushes' own checks; the one token it is given there is
        // a placeholder that nothing sends (the targets come from the audience).
        var content: [String: RichPushJSONValue] = [:]
        for (key, value) in root where Self.contentKeys.contains(key) { content[key] = value }
        content["tokens"] = .array([.string(String(repeating: "0", count: 64))])
        self.content = try PushSendRequest(body: RichPushJSONValue.object(content).jsonData(), defaultTopic: defaultTopic)

        if let value = root["send_at"] {
            guard let text = value.stringValue, let ms = RFC3339Time.milliseconds(text) else {
                throw HTTPResponseError(
                    field: "send_at", message: "send_at must be an RFC 3339 time with a zone, e.g. \"2026-12-02T09:00:00Z\" or \"2026-12-02T10:00:00+01:00\"")
            }
            guard ms >= nowMs - Self.maximumLagSeconds * 1000 else {
                throw HTTPResponseError(
                    field: "send_at", message: "send_at is more than 24 h in the past; leave it out to start now, or give the time you meant")
            }
            guard ms <= nowMs + Self.maximumLeadSeconds * 1000 else {
                throw HTTPResponseError(field: "send_at", message: "send_at is more than 366 days ahead; schedule at most a year ahead")
            }
            sendAtMs = ms
        }
        if let value = root["per_minute"] {
            guard let n = value.integerLiteralValue, (1...Self.maximumPerMinute).contains(n) else {
                throw HTTPResponseError(
                    field: "per_minute",
                    message:
                        "per_minute must be an integer from 1 to \(Self.maximumPerMinute) (sends per minute over all instances); leave it out for no throttle")
            }
            perMinute = n
        }
    }

    private static func audience(_ value: RichPushJSONValue, provider: PushProvider?) throws -> CampaignAudience {
        guard let object = value.objectValue else {
            throw HTTPResponseError(
                field: "audience",
                message: "audience must be an object: {\"tokens\": [...]}, {\"user_ids\": [...]}, {\"all\": true} or {\"tags\": {\"any\": [...]}}")
        }
        let kinds = ["tokens", "user_ids", "all", "tags"].filter { object[$0] != nil }
        guard kinds.count == 1 else {
            throw HTTPResponseError(
                field: "audience",
                message: "audience must name exactly one of tokens, user_ids, all, tags (it names \(kinds.isEmpty ? "none" : kinds.joined(separator: ", ")))")
        }
        let allowed: Set<String> = kinds[0] == "all" ? ["all", "platform"] : [kinds[0]]
        if let extra = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw HTTPResponseError(
                field: "audience.\(extra)",
                message:
                    "audience has an unknown field \(extra.prefix(64)); \(kinds[0] == "all" ? "all takes only platform beside it" : "give one audience kind alone")"
            )
        }
        switch kinds[0] {
        case "tokens":
            let list = try JSONRequestBody.list(
                object["tokens"] ?? .null, field: "audience.tokens", maximum: maximumTokens,
                expected: "a non-empty array of device tokens (APNs: hex; FCM: registration tokens)",
                split: "register the devices (POST /v1/devices) and use {\"all\": true}, user_ids or tags, or split the campaign")
            var seen = Set<String>()
            var tokens: [String] = []
            for (index, item) in list.enumerated() {
                guard let raw = item.stringValue, let token = DeviceTokenRule.canonical(raw, provider: provider?.rawValue) else {
                    throw HTTPResponseError(field: "audience.tokens", message: "audience.tokens[\(index)] is not a device token: \(DeviceTokenRule.summary)")
                }
                if seen.insert(token).inserted { tokens.append(token) }
            }
            return .tokens(tokens)
        case "user_ids":
            guard let list = object["user_ids"]?.arrayValue, !list.isEmpty else {
                throw HTTPResponseError(field: "audience.user_ids", message: "audience.user_ids must be a non-empty array of user ids")
            }
            guard list.count <= maximumUserIDs else {
                throw HTTPResponseError(
                    status: 413, code: "too_many_user_ids", field: "audience.user_ids",
                    message:
                        "\(list.count) user ids in one campaign; at most \(maximumUserIDs): tag the devices (POST /v1/devices tags) and use {\"tags\": {\"any\": [...]}}, or split the campaign"
                )
            }
            var seen = Set<String>()
            var ids: [String] = []
            for (index, item) in list.enumerated() {
                guard let id = item.stringValue, DeviceRegistrationRequest.isValidUserID(id) else {
                    throw HTTPResponseError(
                        field: "audience.user_ids",
                        message:
                            "audience.user_ids[\(index)] is not a user id (1…\(DeviceRegistrationRequest.maximumUserIDBytes) bytes without control characters)")
                }
                if seen.insert(id).inserted { ids.append(id) }
            }
            return .userIDs(ids)
        case "all":
            guard object["all"] == .bool(true) else {
                throw HTTPResponseError(field: "audience.all", message: "audience.all must be true (every registered device)")
            }
            var platform: String?
            if let value = object["platform"] {
                guard let name = value.stringValue, DeviceRegistrationRequest.platforms.contains(name) else {
                    throw HTTPResponseError(
                        field: "audience.platform",
                        message: "audience.platform must be one of \(DeviceRegistrationRequest.platforms.sorted().joined(separator: ", "))")
                }
                platform = name
            }
            return .all(platform: platform)
        default:
            guard let tags = object["tags"]?.objectValue, tags.count == 1, let any = tags["any"] else {
                throw HTTPResponseError(
                    field: "audience.tags", message: "audience.tags must be {\"any\": [\"tag\", …]}: devices holding at least one of the tags")
            }
            return .tagsAny(try DeviceTagRule.tags(any, field: "audience.tags.any", allowEmpty: false))
        }
    }
}
