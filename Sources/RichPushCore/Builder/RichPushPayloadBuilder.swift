import Foundation

/// A typed APNs payload: the `aps` dictionary plus custom keys, serialised as APNs accepts it.
///
/// ```swift
/// var payload = RichPushPayloadBuilder(title: "お知らせ", body: "テスト")
/// payload.mediaURL = "https://example.com/001.jpg"      // sets mutable-content: 1 too
/// payload.pushID = "2018001"
/// let data = payload.jsonData()
/// ```
///
/// - Important: Apple: the extension runs only for a visible alert with `"mutable-content": 1`
///   (the integer); the builder writes exactly that whenever a media URL is set.
public struct RichPushPayloadBuilder: Sendable, Equatable {
    /// `aps.alert` members: the same value the parser reads (`RichPushNotificationPayload.Alert`).
    public typealias Alert = RichPushNotificationPayload.Alert

    /// The alert; `nil` for a silent or background push.
    public var alert: Alert?
    /// `aps.badge`; `0` clears the badge.
    public var badge: Int?
    /// `aps.sound`, e.g. `"default"`.
    public var sound: String?
    /// `aps.thread-id`: groups notifications.
    public var threadID: String?
    /// `aps.category`: the notification category (actions, content extension).
    public var category: String?
    /// Writes `aps["mutable-content"] = 1` (the integer) so the service extension runs.
    public var mutableContent: Bool = false
    /// Writes `aps["content-available"] = 1`: a background push.
    public var contentAvailable: Bool = false
    /// `aps.interruption-level`.
    public var interruptionLevel: RichPushInterruptionLevel?
    /// `aps.relevance-score`, from 0 to 1.
    public var relevanceScore: Double?
    /// The media URL (https) the extension downloads; setting it also sets `mutableContent`.
    public var mediaURL: String? {
        didSet { if mediaURL != nil { mutableContent = true } }
    }
    /// Where the media URL goes; default `image-url` (articles 001, 002). Any of
    /// `RichPushPayloadKeyPath.defaultMediaKeyPaths` is read by the RichPush extension.
    public var mediaKeyPath: RichPushPayloadKeyPath = "image-url"
    /// The push id reported back in receipts (top-level `push_id`).
    public var pushID: String?
    /// A message from a person: written as the top-level `sender` (and `conversation`), which
    /// the RichPush extension shows as a communication notification; setting it also sets
    /// `mutableContent` (the extension must run).
    public var message: RichPushMessage? {
        didSet { if message != nil { mutableContent = true } }
    }
    /// Custom top-level keys (outside `aps`). Keys set by the builder win over these.
    public var customKeys: [String: RichPushJSONValue] = [:]

    /// Makes a payload with a visible alert.
    /// - Parameters:
    ///   - title: the alert title.
    ///   - subtitle: the alert subtitle.
    ///   - body: the alert body.
    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
        if title != nil || subtitle != nil || body != nil {
            alert = Alert(title: title, subtitle: subtitle, body: body)
        }
    }

    /// The payload as a JSON value.
    ///
    /// - Returns: `{"aps": {…}, custom keys…, media URL, push_id, sender, conversation}`.
    public func jsonValue() -> RichPushJSONValue {
        var root = customKeys
        var aps: [String: RichPushJSONValue] = [:]
        if let alert {
            var a: [String: RichPushJSONValue] = [:]
            a["title"] = alert.title.map(RichPushJSONValue.string)
            a["subtitle"] = alert.subtitle.map(RichPushJSONValue.string)
            a["body"] = alert.body.map(RichPushJSONValue.string)
            a["title-loc-key"] = alert.titleLocKey.map(RichPushJSONValue.string)
            a["title-loc-args"] = alert.titleLocArgs.map { .array($0.map(RichPushJSONValue.string)) }
            a["subtitle-loc-key"] = alert.subtitleLocKey.map(RichPushJSONValue.string)
            a["subtitle-loc-args"] = alert.subtitleLocArgs.map { .array($0.map(RichPushJSONValue.string)) }
            a["loc-key"] = alert.locKey.map(RichPushJSONValue.string)
            a["loc-args"] = alert.locArgs.map { .array($0.map(RichPushJSONValue.string)) }
            a["launch-image"] = alert.launchImage.map(RichPushJSONValue.string)
            aps["alert"] = .object(a)
        }
        aps["badge"] = badge.map(RichPushJSONValue.int)
        aps["sound"] = sound.map(RichPushJSONValue.string)
        aps["thread-id"] = threadID.map(RichPushJSONValue.string)
        aps["category"] = category.map(RichPushJSONValue.string)
        if mutableContent || mediaURL != nil { aps["mutable-content"] = .int(1) }
        if contentAvailable { aps["content-available"] = .int(1) }
        aps["interruption-level"] = interruptionLevel.map { .string($0.rawValue) }
        aps["relevance-score"] = relevanceScore.map(RichPushJSONValue.double)
        var value = RichPushJSONValue.object(root)
        if let mediaURL { value = value.setting(.string(mediaURL), at: mediaKeyPath) }
        root = value.objectValue ?? [:]
        if let pushID { root["push_id"] = .string(pushID) }
        if let message {
            root["sender"] = message.senderJSON
            root["conversation"] = message.conversationJSON
        }
        // aps last: a custom key or media path under aps must not replace the builder's members.
        var mergedAPS = root["aps"]?.objectValue ?? [:]
        for (k, v) in aps { mergedAPS[k] = v }
        if case .object(var alertObject)? = mergedAPS["alert"], let media = root["aps"]?["alert"]?.objectValue {
            for (k, v) in media where alertObject[k] == nil { alertObject[k] = v }
            mergedAPS["alert"] = .object(alertObject)
        }
        root["aps"] = .object(mergedAPS)
        return .object(root)
    }

    /// The payload as compact JSON bytes (what is sent; its size is what APNs limits).
    ///
    /// - Returns: UTF-8 JSON, keys sorted for stable output.
    public func jsonData() -> Data {
        jsonValue().jsonData(sortedKeys: true)
    }
}
