import Foundation
import RichPushCore
import RichPushProvider

/// A `POST /v1/campaigns` body, checked.
///
/// ```json
/// {"audience": {"tokens": ["<hex>", …]} | {"user_ids": ["u-1", …]} | {"all": true, "platform": "ios"}
///              | {"tags": {"any": ["beta", …]}},
///  "provider": "apns" | "fcm", "send_at": "2026-12-02T09:00:00Z", "per_minute": 60000, "queue_priority": 0,
///  …the content fields of POST /v1/pushes: "push_id", "payload" | "title"/"body"/"image"/"buttons", "push_type",
///  "priority", "collapse_id", "expiration", "topic", "media", "on_media_error",
///  "variants": [{"title": "…", "image": "…", "weight": 50}, {"title": "…", "weight": 50}],
///  "test": {"share": 20, "window_minutes": 60, "winner_by": "display_to_open" | "conversions"},
///  "attribution_hours": 24}
/// ```
///
/// The content is checked exactly as `POST /v1/pushes` checks it (`PushSendRequest`: the same
/// lint, the same 400s naming the field), so a campaign sends what a push would; each variant is
/// the campaign's content with the variant's fields in place of the same ones (a variant's
/// `payload` replaces the built fields), checked the same way, with its own push id (default:
/// the campaign's + `.a`, `.b`, …).
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
    /// Variants: 2 to 5.
    static let variantCounts = 2...5
    /// The highest `queue_priority`.
    static let maximumQueuePriority = 9
    /// The longest test window: 7 days, in minutes.
    static let maximumTestWindowMinutes = 7 * 24 * 60
    /// The longest attribution window: 30 days, in hours (APNs keeps a notification at most 30 days).
    static let maximumAttributionHours = 720
    /// The default attribution window, hours.
    static let defaultAttributionHours = 24

    /// One variant, checked.
    struct Variant: Sendable {
        /// `A` … `E`.
        var name: String
        /// Its share of the split, percent.
        var weight: Int
        /// Its content (its own push id).
        var content: PushSendRequest
    }

    /// A test: a share of the audience first, the winner to the rest after a window.
    struct Test: Sendable, Equatable {
        /// The share of the audience in the test, percent (1…99).
        var sharePercent: Int
        /// How long after the start the winner is picked (once the test's chunks are done), ms.
        var windowMs: Int
        /// What picks the winner.
        var winnerBy: VariantRanking.Metric
    }

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
    /// Its place among running campaigns (0…9, default 0; higher first).
    var queuePriority = 0
    /// The variants (empty for one content).
    var variants: [Variant] = []
    /// The test, when the variants have one.
    var test: Test?
    /// How long after a send a conversion counts for it, ms.
    var attributionMs = CampaignRequest.defaultAttributionHours * 3_600_000

    private static let campaignKeys: Set<String> = ["audience", "send_at", "per_minute", "queue_priority", "variants", "test", "attribution_hours"]
    private static let contentKeys: Set<String> = Set(
        [
            "push_id", "provider", "payload", "title", "subtitle", "body", "image", "media_key", "buttons", "push_type", "priority", "collapse_id",
            "expiration", "topic",
        ] + PushMediaOptions.fields)
    /// The content fields a variant may set.
    private static let variantKeys: Set<String> = ["push_id", "payload", "title", "subtitle", "body", "image", "media_key", "buttons", "weight"]
    /// The fields a payload is built from (a variant's `payload` replaces them).
    private static let builderKeys: Set<String> = ["title", "subtitle", "body", "image", "media_key", "buttons"]

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
        var placeholder = content
        placeholder["tokens"] = .array([.string(String(repeating: "0", count: 64))])
        if root["variants"] != nil, !placeholder.keys.contains(where: { Self.builderKeys.contains($0) || $0 == "payload" }) {
            // With variants the campaign's own content may be only what the variants share: a
            // placeholder alert keeps it checkable (it is never sent).
            placeholder["title"] = .string("variants")
        }
        self.content = try PushSendRequest(body: RichPushJSONValue.object(placeholder).jsonData(), defaultTopic: defaultTopic)

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
        if let value = root["queue_priority"] {
            guard let n = value.integerLiteralValue, (0...Self.maximumQueuePriority).contains(n) else {
                throw HTTPResponseError(
                    field: "queue_priority",
                    message:
                        "queue_priority must be an integer from 0 to \(Self.maximumQueuePriority): free workers take a chunk of the highest priority first; campaigns of equal priority take turns"
                )
            }
            queuePriority = n
        }
        if let value = root["attribution_hours"] {
            guard let n = value.integerLiteralValue, (1...Self.maximumAttributionHours).contains(n) else {
                throw HTTPResponseError(
                    field: "attribution_hours",
                    message:
                        "attribution_hours must be an integer from 1 to \(Self.maximumAttributionHours): how long after a send a conversion (POST /v1/conversions) counts for it"
                )
            }
            attributionMs = n * 3_600_000
        }
        if let value = root["variants"] {
            variants = try Self.variants(value, base: content, basePushID: self.content.pushID, defaultTopic: defaultTopic)
        }
        if let value = root["test"] {
            guard !variants.isEmpty else {
                throw HTTPResponseError(
                    field: "test", message: "test needs variants: a test sends the variants to a share of the audience, then the winner to the rest")
            }
            test = try Self.test(value)
        }
    }

    /// Reads `variants`: 2…5 objects, each the campaign's content with its own fields in place.
    private static func variants(_ value: RichPushJSONValue, base: [String: RichPushJSONValue], basePushID: String, defaultTopic: String?) throws -> [Variant] {
        guard let list = value.arrayValue, variantCounts.contains(list.count) else {
            throw HTTPResponseError(
                field: "variants",
                message:
                    "variants must be an array of \(variantCounts.lowerBound) to \(variantCounts.upperBound) objects, each with the fields it changes (title, body, image, buttons, payload) and a weight"
            )
        }
        let names = ["A", "B", "C", "D", "E"]
        var out: [Variant] = []
        var weights: [Int?] = []
        var pushIDs = Set<String>()
        for (index, item) in list.enumerated() {
            let field = "variants[\(index)]"
            guard let object = item.objectValue, !object.isEmpty else {
                throw HTTPResponseError(field: field, message: "\(field) must be an object with the fields this variant changes, e.g. {\"title\": \"…\"}")
            }
            if let extra = object.keys.sorted().first(where: { !variantKeys.contains($0) }) {
                throw HTTPResponseError(
                    field: "\(field).\(extra)",
                    message: "\(field) has an unknown field \(extra.prefix(64)); a variant may set \(variantKeys.sorted().joined(separator: ", "))")
            }
            var weight: Int?
            if let raw = object["weight"] {
                guard let n = raw.integerLiteralValue, (1...99).contains(n) else {
                    throw HTTPResponseError(field: "\(field).weight", message: "\(field).weight must be an integer from 1 to 99 (percent of the split)")
                }
                weight = n
            }
            weights.append(weight)
            // The campaign's content, with the variant's fields in place (its payload replaces the built ones).
            var content = base
            if object["payload"] != nil { for key in builderKeys { content[key] = nil } }
            if object.keys.contains(where: { builderKeys.contains($0) }) { content["payload"] = nil }
            for (key, value) in object where key != "weight" { content[key] = value }
            let pushID = object["push_id"].flatMap(Self.idText) ?? basePushID + "." + names[index].lowercased()
            content["push_id"] = .string(pushID)
            guard pushIDs.insert(pushID).inserted, pushID != basePushID else {
                throw HTTPResponseError(field: "\(field).push_id", message: "each variant needs its own push id (its funnel is that push's)")
            }
            content["tokens"] = .array([.string(String(repeating: "0", count: 64))])
            do {
                out.append(
                    Variant(
                        name: names[index], weight: 0,
                        content: try PushSendRequest(body: RichPushJSONValue.object(content).jsonData(), defaultTopic: defaultTopic))
                )
            } catch var error as HTTPResponseError {
                error.field = error.field.map { "\(field).\($0)" } ?? field
                throw error
            }
        }
        // Weights: given for all (adding up to 100), or for none (an even split; the rest of 100 to the first).
        let given = weights.compactMap { $0 }
        if given.isEmpty {
            let share = 100 / out.count
            for index in out.indices { out[index].weight = share + (index == 0 ? 100 - share * out.count : 0) }
        } else {
            guard given.count == out.count, given.reduce(0, +) == 100 else {
                throw HTTPResponseError(
                    field: "variants",
                    message: "the variants' weights must all be given and add up to 100 (now \(given.reduce(0, +))), or be left out for an even split")
            }
            for index in out.indices { out[index].weight = given[index] }
        }
        return out
    }

    /// A push id as a request gives it: a string, or an integer's exact digits.
    private static func idText(_ value: RichPushJSONValue) -> String? {
        switch value {
        case .string(let s): s.value
        case .number(let n) where n.isIntegerLiteral: n.text
        default: nil
        }
    }

    /// Reads `test`: `{"share": 1…99, "window_minutes": 1…10080, "winner_by": "display_to_open" | "conversions"}`.
    private static func test(_ value: RichPushJSONValue) throws -> Test {
        guard let object = value.objectValue else {
            throw HTTPResponseError(
                field: "test", message: "test must be an object: {\"share\": 20, \"window_minutes\": 60, \"winner_by\": \"display_to_open\"}")
        }
        if let extra = object.keys.sorted().first(where: { !["share", "window_minutes", "winner_by"].contains($0) }) {
            throw HTTPResponseError(field: "test.\(extra)", message: "test has an unknown field \(extra.prefix(64)); it takes share, window_minutes, winner_by")
        }
        guard let share = object["share"]?.integerLiteralValue, (1...99).contains(share) else {
            throw HTTPResponseError(
                field: "test.share", message: "test.share must be an integer from 1 to 99: the percent of the audience the variants go to first")
        }
        guard let minutes = object["window_minutes"]?.integerLiteralValue, (1...maximumTestWindowMinutes).contains(minutes) else {
            throw HTTPResponseError(
                field: "test.window_minutes",
                message: "test.window_minutes must be an integer from 1 to \(maximumTestWindowMinutes): how long after the start the winner is picked")
        }
        var metric = VariantRanking.Metric.displayToOpen
        if let raw = object["winner_by"] {
            guard let name = raw.stringValue, let parsed = VariantRanking.Metric(rawValue: name) else {
                throw HTTPResponseError(
                    field: "test.winner_by",
                    message: "test.winner_by must be \"display_to_open\" (opened ÷ displayed, the default) or \"conversions\" (conversions ÷ sent)")
            }
            metric = parsed
        }
        return Test(sharePercent: share, windowMs: minutes * 60_000, winnerBy: metric)
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
