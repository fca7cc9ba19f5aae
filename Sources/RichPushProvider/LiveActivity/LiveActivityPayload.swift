import Foundation
import RichPushCore

/// Builds the JSON payload of an ActivityKit push notification (`apns-push-type: liveactivity`),
/// the way Apple's "Starting and updating Live Activities with ActivityKit push notifications"
/// describes it:
///
/// ```swift
/// var start = LiveActivityPayload(event: .start, contentState: .object(["score": .int(0)]))
/// start.attributesType = "MatchAttributes"
/// start.attributes = .object(["home": .string("Lyon"), "away": .string("Nantes")])
/// start.alert = LiveActivityAlert(title: "Kick-off", body: "Lyon – Nantes has started")
/// start.inputPushChannel = channelID   // iOS 18: updates come on the channel
/// let notification = APNsNotification.liveActivity(start, bundleID: "com.example.app")
/// ```
///
/// - `aps.timestamp`: seconds since 1970 (default: now), so the system keeps the latest update.
/// - `aps.stale-date`, `aps.dismissal-date`: seconds since 1970 (UNIX time), written as integers.
/// - `aps.content-state`: the app's `ContentState` as its default `JSONDecoder` reads it: a
///   `Date` inside it is seconds since 2001-01-01 (`appDate(_:)`, or `encodeContentState(_:)`
///   for an `Encodable` value), never an ISO string or UNIX seconds.
public struct LiveActivityPayload: Sendable, Hashable {
    /// `aps.event`.
    public var event: LiveActivityEvent
    /// `aps.timestamp`: when the data was current (written as whole seconds since 1970).
    public var timestamp: Date
    /// `aps.content-state`: the dynamic data, an object matching the app's `ContentState`.
    public var contentState: RichPushJSONValue?
    /// `aps.stale-date`: when the system shows the activity as outdated.
    public var staleDate: Date?
    /// `aps.dismissal-date` (with `end`): when the ended activity leaves the Lock Screen (a date in
    /// the past removes it at once; Apple: at most four hours after it ends).
    public var dismissalDate: Date?
    /// `aps.relevance-score`: orders the app's activities (higher first; relative values, e.g. 100 and 50).
    public var relevanceScore: Double?
    /// `aps.alert`: a string or a dictionary (title, body, sound, loc-key…); required for `start`.
    public var alertValue: RichPushJSONValue?
    /// `aps.attributes-type` (with `start`): the name of the app's `ActivityAttributes` type.
    public var attributesType: String?
    /// `aps.attributes` (with `start`): the static data, matching the app's attributes type.
    public var attributes: RichPushJSONValue?
    /// `aps.input-push-token: 1` (with `start`, iOS 18): the started activity gets an update token.
    public var inputPushToken = false
    /// `aps.input-push-channel` (with `start`, iOS 18): the started activity listens on this
    /// broadcast channel (its base64 channel id).
    public var inputPushChannel: String?
    /// Keys beside `aps` at the top level of the payload (the app's own).
    public var customKeys: [String: RichPushJSONValue] = [:]

    /// Makes a payload.
    /// - Parameters:
    ///   - event: start, update or end.
    ///   - contentState: the dynamic data (`nil`: none; an `end` without it keeps the last one shown).
    ///   - timestamp: when the data was current (default: now).
    public init(event: LiveActivityEvent, contentState: RichPushJSONValue? = nil, timestamp: Date = Date()) {
        self.event = event
        self.contentState = contentState
        self.timestamp = timestamp
    }

    /// `aps.alert` as a title, body and sound.
    public var alert: LiveActivityAlert? {
        get {
            guard let o = alertValue?.objectValue, let title = o["title"]?.stringValue, let body = o["body"]?.stringValue else { return nil }
            return LiveActivityAlert(title: title, body: body, sound: o["sound"]?.stringValue)
        }
        set { alertValue = newValue?.jsonValue }
    }

    /// The payload as JSON: `{"aps": {…}}` plus the custom keys.
    public var jsonValue: RichPushJSONValue {
        var aps: [String: RichPushJSONValue] = [
            "event": .string(event.rawValue),
            "timestamp": .int(Self.unixSeconds(timestamp)),
        ]
        if let contentState { aps["content-state"] = contentState }
        if let staleDate { aps["stale-date"] = .int(Self.unixSeconds(staleDate)) }
        if let dismissalDate { aps["dismissal-date"] = .int(Self.unixSeconds(dismissalDate)) }
        if let relevanceScore { aps["relevance-score"] = .double(relevanceScore) }
        if let alertValue { aps["alert"] = alertValue }
        if let attributesType { aps["attributes-type"] = .string(attributesType) }
        if let attributes { aps["attributes"] = attributes }
        if inputPushToken { aps["input-push-token"] = .int(1) }
        if let inputPushChannel { aps["input-push-channel"] = .string(inputPushChannel) }
        var root = customKeys
        root["aps"] = .object(aps)
        return .object(root)
    }

    /// The payload bytes as sent: compact JSON, keys sorted.
    /// - Returns: UTF-8 JSON.
    public func jsonData() -> Data {
        jsonValue.jsonData(sortedKeys: true)
    }

    /// A date as the app's `ContentState` decodes it with a default `JSONDecoder`
    /// (`.deferredToDate`): seconds since 2001-01-01 00:00:00 UTC, as a number.
    ///
    /// - Parameter date: the date.
    /// - Returns: `.number` (`timeIntervalSinceReferenceDate`).
    public static func appDate(_ date: Date) -> RichPushJSONValue {
        .double(date.timeIntervalSinceReferenceDate)
    }

    /// Encodes an `Encodable` content state (or attributes) exactly as ActivityKit decodes it:
    /// `JSONEncoder` with its default strategies (Apple: "don't use any custom JSON encoding
    /// strategies … the system always decodes JSON payloads for Live Activity updates using its
    /// default encoding strategies").
    ///
    /// - Parameter value: the app's `ContentState` or attributes, shared with the server.
    /// - Returns: the JSON value.
    /// - Throws: `EncodingError` from `JSONEncoder`, or `RichPushError` `invalid_json`.
    public static func encodeContentState<T: Encodable>(_ value: T) throws -> RichPushJSONValue {
        try RichPushJSONValue.parse(JSONEncoder().encode(value))
    }

    /// Whole seconds since 1970 (rounded down), clamped to what APNs' 32-bit times hold.
    /// - Parameter date: the date.
    /// - Returns: the seconds.
    public static func unixSeconds(_ date: Date) -> Int {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return 0 }
        return Int(min(max(seconds, -4_294_967_295), 4_294_967_295))
    }
}
