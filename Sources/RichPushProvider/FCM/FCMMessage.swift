import Foundation
import RichPushCore

/// An FCM HTTP v1 `message`: the APNs payload FCM hands to APNs for iOS devices, its APNs
/// headers and image, and optionally the cross-platform `notification` and `data`.
///
/// The same message goes to many registration tokens: `requestBody(for:)` writes it once per
/// token (the token is the last member, so the rest is serialized once per batch).
///
/// - Important: FCM v1 passes `apns.payload` to APNs as is: the extension runs only with
///   `apns.payload.aps["mutable-content"] = 1` (the integer); `apns.fcm_options.image` is where
///   Firebase's own extension helper reads the image. The legacy `notification.mutable_content`
///   of article 001 does not exist in v1.
public struct FCMMessage: Sendable {
    /// The FCM registration token for `send(_:)` of one message (batch sends give their own).
    public var token: String
    /// `apns.payload`: the APNs payload, sent exactly as held (numbers and strings unchanged).
    public var apnsPayload: RichPushJSONValue
    /// `apns.headers`, e.g. `apns-priority`, `apns-collapse-id`, `apns-push-type`.
    public var apnsHeaders: [String: String] = [:]
    /// `apns.fcm_options.image`: the image URL (https) Firebase's extension helper reads.
    public var imageURL: String?
    /// `notification` (`title`, `body`, `image`): what FCM shows on Android and web; empty = none.
    public var notification: [String: String] = [:]
    /// `data`: string values only (FCM's rule); empty = none.
    public var data: [String: String] = [:]
    /// `android.collapse_key`: messages with the same key that FCM still holds for an offline
    /// Android device collapse to the last one (Firebase: "a collapsible message is a message
    /// that may be replaced by a new message if it has yet to be delivered to the device"; FCM
    /// keeps at most four collapse keys per device at once). Firebase documents no length limit;
    /// RichPush sets it from `apns-collapse-id`, which Apple limits to 64 bytes. `nil` = none.
    public var androidCollapseKey: String?

    /// Makes a message from title, body and image, as article 001 sends it: `notification`,
    /// `data[mediaKeyPath]` and an APNs payload with the image at `mediaKeyPath` and
    /// `mutable-content: 1`.
    /// - Parameters:
    ///   - token: the registration token.
    ///   - title: the title.
    ///   - body: the body.
    ///   - imageURL: the image (https).
    ///   - mediaKeyPath: where the image URL goes in the APNs payload and `data` (default
    ///     `image-url`, which the RichPush extension reads).
    public init(token: String, title: String? = nil, body: String? = nil, imageURL: String? = nil, mediaKeyPath: RichPushPayloadKeyPath = "image-url") {
        self.token = token
        var payload = RichPushPayloadBuilder(title: title, body: body)
        payload.mediaKeyPath = mediaKeyPath
        payload.mediaURL = imageURL
        apnsPayload = payload.jsonValue()
        self.imageURL = imageURL
        notification["title"] = title
        notification["body"] = body
        notification["image"] = imageURL
        if let imageURL { data[mediaKeyPath.description] = imageURL }
    }

    /// Makes a message around an APNs payload (what `richpush send --fcm-service-account` and
    /// `POST /v1/pushes` with `"provider": "fcm"` send).
    /// - Parameters:
    ///   - token: the registration token (empty for batch sends).
    ///   - apnsPayload: the APNs payload.
    ///   - apnsHeaders: APNs headers for FCM to pass on.
    ///   - imageURL: `apns.fcm_options.image`.
    public init(token: String = "", apnsPayload: RichPushJSONValue, apnsHeaders: [String: String] = [:], imageURL: String? = nil) {
        self.token = token
        self.apnsPayload = apnsPayload
        self.apnsHeaders = apnsHeaders
        self.imageURL = imageURL
    }

    /// Makes the FCM form of an APNs notification: its payload as `apns.payload`, its push type,
    /// priority, expiration and collapse id as `apns.headers`, the collapse id also as
    /// `android.collapse_key` (so a message sent twice collapses on Android as on iOS), and the
    /// payload's first media URL as `apns.fcm_options.image`. The topic is left to FCM (it
    /// knows the app's bundle id).
    /// - Parameters:
    ///   - notification: the APNs notification.
    ///   - mediaKeyPaths: where media URLs are looked for.
    /// - Throws: `RichPushError` `invalid_json` when the payload bytes are not JSON.
    public init(_ notification: APNsNotification, mediaKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultMediaKeyPaths) throws {
        let payload = try RichPushJSONValue.parseStrictly(notification.payload)
        var headers = ["apns-push-type": notification.pushType.rawValue]
        if let priority = notification.priority { headers["apns-priority"] = String(priority.rawValue) }
        if let expiration = notification.expiration { headers["apns-expiration"] = String(Int(expiration.timeIntervalSince1970)) }
        if let collapseID = notification.collapseID { headers["apns-collapse-id"] = collapseID }
        let image = mediaKeyPaths.lazy.compactMap { $0.string(in: payload) }.first { $0.lowercased().hasPrefix("https://") }
        self.init(apnsPayload: payload, apnsHeaders: headers, imageURL: image)
        androidCollapseKey = notification.collapseID
    }

    /// The request body for `token`: `{"message": {token, android?: {collapse_key}, notification?, data?, apns: {headers?, payload, fcm_options?}}}`.
    public var requestBody: RichPushJSONValue { requestBody(for: token) }

    /// The request body for one registration token.
    /// - Parameter token: the registration token.
    /// - Returns: the body.
    public func requestBody(for token: String) -> RichPushJSONValue {
        var message = messageWithoutToken
        message["token"] = .string(token)
        return .object(["message": .object(message)])
    }

    /// The members of `message` except `token`.
    var messageWithoutToken: [String: RichPushJSONValue] {
        var apns: [String: RichPushJSONValue] = ["payload": apnsPayload]
        if let imageURL { apns["fcm_options"] = .object(["image": .string(imageURL)]) }
        if !apnsHeaders.isEmpty { apns["headers"] = .object(apnsHeaders.mapValues(RichPushJSONValue.string)) }
        var message: [String: RichPushJSONValue] = ["apns": .object(apns)]
        if let androidCollapseKey { message["android"] = .object(["collapse_key": .string(androidCollapseKey)]) }
        if !notification.isEmpty { message["notification"] = .object(notification.mapValues(RichPushJSONValue.string)) }
        if !data.isEmpty { message["data"] = .object(data.mapValues(RichPushJSONValue.string)) }
        return message
    }

    /// The body serialized once, split where the token goes: `prefix + "\"token\"" + suffix`.
    /// `token` sorts after every other member of `message` (`android`, `apns`, `data`, `notification`).
    func bodyTemplate() -> (prefix: [UInt8], suffix: [UInt8]) {
        var prefix: [UInt8] = []
        RichPushJSONValue.object(messageWithoutToken).write(into: &prefix)
        // `{…}` → `{"message":{…,"token":` … `}}`
        prefix.removeLast()
        prefix.insert(contentsOf: Array(#"{"message":"#.utf8), at: 0)
        prefix.append(contentsOf: Array(prefix.last == UInt8(ascii: "{") ? #""token":"#.utf8 : #","token":"#.utf8))
        return (prefix, Array("}}".utf8))
    }

    /// The body bytes for one token, from a template made by `bodyTemplate()`.
    static func body(_ template: (prefix: [UInt8], suffix: [UInt8]), token: String) -> Data {
        var out = template.prefix
        out.reserveCapacity(template.prefix.count + token.utf8.count + 8)
        RichPushJSONValue.write(token, into: &out)
        out.append(contentsOf: template.suffix)
        return Data(out)
    }
}
