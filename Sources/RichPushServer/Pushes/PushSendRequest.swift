import Foundation
import RichPushCore
@_spi(RichPushInternal) import RichPushExtension
import RichPushProvider

/// A `POST /v1/pushes` body, checked and turned into one notification for many device tokens,
/// sent through APNs or FCM.
///
/// ```json
/// {"push_id": "2018001", "tokens": ["<64 hex>", …] and/or "user_ids": ["u-42", …],
///  "provider": "apns" | "fcm",
///  "payload": {"aps": {…}} | "title": "…", "subtitle": "…", "body": "…", "image": "https://…",
///  "buttons": [{"id": "buy", "title": "Buy"}, …],
///  "sender": {"id": "u-42", "name": "Ada Lovelace", "avatar": "https://…"},
///  "conversation": {"id": "c-7", "name": "Engine room", "avatar": "https://…", "group": true},
///  "push_type": "alert", "priority": 10, "collapse_id": "…", "expiration": 1767225600, "topic": "com.example.app"}
/// ```
///
/// `sender` and `conversation` (a message from a person, shown by the RichPush extension as a
/// communication notification) are written at the payload's top level, with `RichPushMessage`'s
/// rules; a built payload gets `mutable-content: 1`, a given one must have it (the lint says so).
///
/// `tokens` go through `provider` (default: APNs when the server has APNs settings, else FCM);
/// `user_ids` are looked up in the devices the app registered (`POST /v1/devices`) and each of
/// their tokens goes through the provider it was registered for (only `provider`'s when given).
///
/// The payload gets the push id so receipts match: the request's `push_id` is written at the
/// top-level `push_id` unless the payload already names the same id along
/// `RichPushPayloadKeyPath.defaultPushIDKeyPaths`; without any, the server makes one (a UUID).
public struct PushSendRequest: Sendable {
    /// At most this many device tokens per request (a bound on memory and on one request's time);
    /// the tokens found for `user_ids` count too.
    public static let maximumTokens = 10_000
    /// At most this many user ids per request.
    public static let maximumUserIDs = 1_000
    /// The largest request body: 10,000 tokens of 64 hex digits are about 680 KB, plus the payload.
    public static let maximumBodyBytes = 1_048_576
    /// The latest `expiration` accepted, in UNIX seconds: 4,102,444,800 (2100-01-01; larger
    /// numbers, up to 1e19 and beyond, are refused with 400, never trapped on).
    public static let maximumExpiration = 4_102_444_800

    /// The push id (in the payload, in the receipts, in the store).
    public var pushID: String
    /// Whether the server made the push id.
    public var pushIDGenerated: Bool
    /// The device tokens, duplicates removed, in the given order (APNs hex tokens lower-cased).
    public var tokens: [String]
    /// The user ids whose registered devices also get the push.
    public var userIDs: [String]
    /// The provider the request named (`apns` or `fcm`), `nil` = the server's default.
    public var provider: PushProvider?
    /// The notification: payload bytes and headers.
    public var notification: APNsNotification
    /// The alert title (or body) to show on the dashboard.
    public var title: String?
    /// Lint warnings (errors refuse the request).
    public var warnings: [RichPushLintFinding]
    /// The `topic` the request itself gave (`nil`: the server's `--apns-topic`), so that a topic
    /// APNs refuses is blamed on the request's field, not on the server's settings.
    public var requestTopic: String?
    /// What the send-time media check is asked to do (`media`, `on_media_error`).
    public var mediaOptions: PushMediaOptions
    /// The request's `media_key`, tried before the default media keys, if given.
    public var mediaKeyPath: RichPushPayloadKeyPath?
    /// The request field that holds the media: `payload`, or `image` when the payload was built.
    public var mediaField = "payload"
    /// What the media check found and did per media URL, for the answer's `media` (empty before the check).
    public var mediaReport: [RichPushJSONValue] = []

    /// Reads and checks a request body.
    ///
    /// - Parameters:
    ///   - body: the JSON body.
    ///   - defaultTopic: the server's `--apns-topic`, used when the request has no `topic`
    ///     (`nil` for a server with FCM only: FCM knows the app).
    ///   - makePushID: makes a push id when neither the request nor the payload has one.
    /// - Returns: the request, ready to send.
    /// - Throws: `HTTPResponseError` (400 naming the field; 400 `payload_rejected` with the lint
    ///   findings; 413 `too_many_tokens`).
    public init(body: Data, defaultTopic: String?, makePushID: () -> String = { UUID().uuidString.lowercased() }) throws {
        // Strict: the payload inside goes to APNs as it is (a duplicate key would be dropped).
        let root = try JSONRequestBody.object(
            body,
            known: Set(
                [
                    "push_id", "tokens", "user_ids", "provider", "payload", "title", "subtitle", "body", "image", "media_key", "buttons",
                    "push_type", "priority", "collapse_id", "expiration", "topic", "sender", "conversation",
                ] + PushMediaOptions.fields),
            example: "e.g. {\"tokens\": [\"<hex>\"], \"title\": \"…\", \"body\": \"…\"}")

        mediaOptions = try PushMediaOptions(root)

        // Provider.
        if let value = root["provider"] {
            guard let name = value.stringValue.flatMap(PushProvider.init(rawValue:)) else {
                throw HTTPResponseError(field: "provider", message: "provider must be \"apns\" or \"fcm\"")
            }
            provider = name
        } else {
            provider = nil
        }

        // Targets: tokens and/or user ids.
        var tokens: [String] = []
        if let value = root["tokens"] {
            let list = try JSONRequestBody.list(
                value, field: "tokens", allowEmpty: root["user_ids"] != nil, maximum: Self.maximumTokens,
                expected: "a non-empty array of device tokens (APNs: hex; FCM: registration tokens)",
                split: "split the list into several requests (same push_id to add to one push)")
            var seen = Set<String>()
            let named = provider
            for (index, item) in list.enumerated() {
                // APNs tokens are hex, in any case: one spelling (lower case) everywhere.
                guard let raw = item.stringValue, let token = DeviceTokenRule.canonical(raw, provider: named?.rawValue) else {
                    throw HTTPResponseError(field: "tokens", message: "tokens[\(index)] is not a device token: \(DeviceTokenRule.summary)")
                }
                if seen.insert(token).inserted { tokens.append(token) }
            }
        }
        var userIDs: [String] = []
        if let value = root["user_ids"] {
            guard let list = value.arrayValue, !list.isEmpty, list.count <= Self.maximumUserIDs else {
                throw HTTPResponseError(
                    field: "user_ids",
                    message: "user_ids must be an array of 1…\(Self.maximumUserIDs) user ids, as the app registered them with POST /v1/devices")
            }
            var seen = Set<String>()
            for (index, item) in list.enumerated() {
                guard let id = item.stringValue, DeviceRegistrationRequest.isValidUserID(id) else {
                    throw HTTPResponseError(
                        field: "user_ids",
                        message:
                            "user_ids[\(index)] is not a user id (a string of 1…\(DeviceRegistrationRequest.maximumUserIDBytes) bytes without control characters)"
                    )
                }
                if seen.insert(id).inserted { userIDs.append(id) }
            }
        }
        guard !tokens.isEmpty || !userIDs.isEmpty else {
            throw HTTPResponseError(
                field: "tokens", message: "give tokens (a non-empty array of device tokens) or user_ids (users whose devices registered with POST /v1/devices)")
        }
        self.tokens = tokens
        self.userIDs = userIDs

        // Payload: given, or built from title/body/image.
        let builderKeys = ["title", "subtitle", "body", "image", "media_key", "buttons"].filter { root[$0] != nil }
        var payload: RichPushJSONValue
        if let given = root["payload"] {
            guard builderKeys.isEmpty else {
                throw HTTPResponseError(field: builderKeys[0], message: "give either payload or title/subtitle/body/image/buttons, not both")
            }
            guard given.objectValue != nil else {
                throw HTTPResponseError(field: "payload", message: "payload must be a JSON object with an aps dictionary")
            }
            payload = given
        } else {
            guard !builderKeys.isEmpty else {
                throw HTTPResponseError(field: "payload", message: "give payload (an APNs payload object), or title/body (and image) to build one")
            }
            func text(_ key: String) throws -> String? {
                guard let value = root[key] else { return nil }
                guard let s = value.stringValue else { throw HTTPResponseError(field: key, message: "\(key) must be a string") }
                return s
            }
            mediaField = "image"
            var built = RichPushPayloadBuilder(title: try text("title"), subtitle: try text("subtitle"), body: try text("body"))
            if let key = try text("media_key") {
                built.mediaKeyPath = RichPushPayloadKeyPath(key)
                mediaKeyPath = RichPushPayloadKeyPath(key)
            }
            built.mediaURL = try text("image")
            if let buttons = root["buttons"] {
                // The extension's own rules (≤ 4 buttons, each an id and a title, ids distinct).
                do {
                    _ = try RichPushCategoryDescription.parse(payload: .object(["buttons": buttons]), category: nil)
                } catch {
                    throw HTTPResponseError(field: "buttons", message: "\(error.message) (the extension's rules: docs/extension.md)")
                }
                // Texts a person reads on the lock screen: no control character (openapi.yaml's
                // pattern; a control character in a title or placeholder is a bug upstream).
                for (index, button) in (buttons.arrayValue ?? []).enumerated() {
                    let input = button["input"]
                    let texts =
                        [("id", button["id"]), ("title", button["title"]), ("icon", button["icon"])]
                        + [("input.button", input?["button"]), ("input.placeholder", input?["placeholder"])]
                    for (key, value) in texts {
                        guard let value else { continue }
                        guard let text = value.stringValue else {
                            throw HTTPResponseError(field: "buttons[\(index)].\(key)", message: "buttons[\(index)].\(key) must be a string")
                        }
                        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { continue }
                        throw HTTPResponseError(
                            field: "buttons[\(index)].\(key)",
                            message: "buttons[\(index)].\(key) contains a control character (such as a line feed or U+000F); remove it")
                    }
                }
                built.customKeys["buttons"] = buttons
                built.mutableContent = true
            }
            payload = built.jsonValue()
        }

        // A message from a person: the request's sender and conversation, into the payload.
        if root["sender"] != nil || root["conversation"] != nil {
            for key in ["sender", "conversation"] where root[key] != nil && payload[key] != nil {
                throw HTTPResponseError(field: key, message: "give \(key) either in the payload or as the request's field, not both")
            }
            var given: [String: RichPushJSONValue] = [:]
            given["sender"] = root["sender"]
            given["conversation"] = root["conversation"]
            let reading = RichPushMessage.read(from: .object(given))
            guard let message = reading.message else {
                let problem = reading.problems.first { $0.isError } ?? RichPushMessage.Problem(keyPath: "sender", message: "", isError: true)
                throw HTTPResponseError(
                    field: problem.keyPath.hasPrefix("conversation") ? "conversation" : "sender", message: problem.message)
            }
            payload = payload.setting(message.senderJSON, at: "sender")
            if let conversation = message.conversationJSON { payload = payload.setting(conversation, at: "conversation") }
            if root["payload"] == nil { payload = payload.setting(.int(1), at: "aps.mutable-content") }
        }

        // Push id.
        var requested: String?
        if let value = root["push_id"] {
            switch value {
            case .string(let s) where !s.isEmpty: requested = s.value
            case .number(let n) where n.isIntegerLiteral: requested = n.text
            default: throw HTTPResponseError(field: "push_id", message: "push_id must be a non-empty string, or an integer (taken as its exact digits)")
            }
        }
        var inPayload: (path: RichPushPayloadKeyPath, id: String)?
        for path in RichPushPayloadKeyPath.defaultPushIDKeyPaths {
            switch path.lookup(in: payload) {
            case .string(let s)? where !s.isEmpty: inPayload = (path, s.value)
            case .number(let n)? where n.isIntegerLiteral: inPayload = (path, n.text)
            default: continue
            }
            break
        }
        if let requested, let inPayload, inPayload.id != requested {
            throw HTTPResponseError(
                field: "push_id",
                message:
                    "push_id '\(requested.prefix(128))' differs from the payload's \(inPayload.path) '\(inPayload.id.prefix(128))'; the extension reports the payload's: give one of them"
            )
        }
        var generated = false
        let pushID: String
        if let id = requested ?? inPayload?.id {
            pushID = id
        } else {
            pushID = makePushID()
            generated = true
        }
        guard pushID.utf8.count <= RichPushReceipt.Limits.identifierBytes else {
            throw HTTPResponseError(
                field: "push_id", message: "push_id is \(pushID.utf8.count) bytes; at most \(RichPushReceipt.Limits.identifierBytes) (the receipts' bound)")
        }
        if let bad = IdentifierRule.firstViolation(in: pushID) {
            throw HTTPResponseError(
                code: "not_printable", field: "push_id",
                message: "push_id holds \(IdentifierRule.describe(bad.scalar)), \(bad.kind), at character \(bad.position); \(IdentifierRule.summary)")
        }
        if inPayload == nil { payload = payload.setting(.string(pushID), at: "push_id") }
        self.pushID = pushID
        self.pushIDGenerated = generated
        let alert = payload["aps"]?["alert"]
        title = alert?.stringValue ?? alert?["title"]?.stringValue ?? alert?["body"]?.stringValue

        // Headers.
        let topic: String
        if let value = root["topic"] {
            guard let s = value.stringValue, !s.isEmpty, !s.contains(where: { $0.isWhitespace }) else {
                throw HTTPResponseError(field: "topic", message: "topic must be the app's bundle id, a string")
            }
            topic = s
            requestTopic = s
        } else {
            topic = defaultTopic ?? ""
        }
        var notification = APNsNotification(payload: payload.jsonData(sortedKeys: true), topic: topic)
        if let value = root["push_type"] {
            let known = APNsPushType.documented.map(\.rawValue)
            guard let s = value.stringValue, known.contains(s) else {
                throw HTTPResponseError(
                    field: "push_type",
                    message: "push_type must be one of APNs' push types (Apple, apns-push-type): \(known.joined(separator: ", ")); leave it out for alert")
            }
            notification.pushType = APNsPushType(rawValue: s)
        }
        if let value = root["priority"] {
            guard let n = value.integerLiteralValue, [1, 5, 10].contains(n) else {
                throw HTTPResponseError(field: "priority", message: "priority must be 10, 5 or 1 (apns-priority)")
            }
            notification.priority = APNsPriority(rawValue: n)
        }
        if let value = root["collapse_id"] {
            guard let s = value.stringValue else {
                throw HTTPResponseError(field: "collapse_id", message: "collapse_id must be a string of 1…64 bytes (Apple: apns-collapse-id)")
            }
            guard (1...64).contains(s.utf8.count) else {
                throw HTTPResponseError(
                    field: "collapse_id",
                    message: "collapse_id is \(s.utf8.count) bytes; it must be 1…64 bytes (Apple: apns-collapse-id), or leave it out for no collapsing")
            }
            notification.collapseID = s
        }
        if let value = root["expiration"] {
            guard let n = value.integerLiteralValue, (0...Self.maximumExpiration).contains(n) else {
                throw HTTPResponseError(
                    field: "expiration",
                    message: "expiration must be a UNIX time in seconds from 0 (now or never) to \(Self.maximumExpiration) (apns-expiration)")
            }
            notification.expiration = Date(timeIntervalSince1970: Double(n))
        }

        // The same checks as `richpush lint` and `richpush send`, before anything is sent.
        var linter = RichPushPayloadLinter()
        linter.voip = notification.pushType == .voip
        let findings = linter.lint(notification.payload)
        let errors = findings.filter { $0.severity == .error }
        if !errors.isEmpty {
            throw HTTPResponseError(
                code: "payload_rejected", field: "payload",
                message: "the payload fails the checks (nothing was sent): " + errors.map(\.description).joined(separator: "; ")
                    + "; those with \"fixable\": true in findings have an automatic fix (RichPush's command line: `richpush lint --fix`)",
                findings: findings)
        }
        do {
            _ = try notification.validate(linter: linter, checkingTopic: false)
        } catch let error as RichPushError {
            // The library names the setting in words; this API's name for it is its JSON field.
            let field = error.setting.flatMap { APNsNotification.Setting(rawValue: $0) }.map(Self.field)
            throw HTTPResponseError(code: error.code.rawValue, field: field, message: error.message)
        }
        warnings = findings
        self.notification = notification
    }

    /// The JSON field of `POST /v1/pushes` that sets a notification setting.
    ///
    /// - Parameter setting: the setting an `APNsNotification.validate` error is about.
    /// - Returns: the request body's field (`priority`, `push_type`, …).
    public static func field(_ setting: APNsNotification.Setting) -> String {
        switch setting {
        case .topic: "topic"
        case .priority: "priority"
        case .pushType: "push_type"
        case .collapseID: "collapse_id"
        }
    }
}
