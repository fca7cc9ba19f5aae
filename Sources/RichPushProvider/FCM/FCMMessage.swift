import Foundation
import RichPushCore

/// An FCM HTTP v1 `message` for one device: the cross-platform notification, data, and the APNs
/// override that makes the image appear on iOS.
///
/// - Important: FCM v1 passes `apns.payload` to APNs as is: the extension runs only with
///   `apns.payload.aps["mutable-content"] = 1` (the integer); `apns.fcm_options.image` is where
///   Firebase's own extension helper reads the image. The legacy `notification.mutable_content`
///   of article 001 does not exist in v1.
public struct FCMMessage: Sendable {
    /// The FCM registration token of the device.
    public var token: String
    /// `notification.title`.
    public var title: String?
    /// `notification.body`.
    public var body: String?
    /// The image URL (https): `notification.image`, `apns.fcm_options.image`, and the payload's
    /// media key (default `image-url`, which the RichPush extension reads).
    public var imageURL: String?
    /// `data`: string values only (FCM's rule).
    public var data: [String: String] = [:]
    /// `apns.headers`, e.g. `apns-priority`, `apns-collapse-id`.
    public var apnsHeaders: [String: String] = [:]
    /// Where the image URL also goes in the APNs payload (default `image-url`, article 001).
    public var mediaKeyPath: PayloadKeyPath = "image-url"

    /// Makes a message.
    /// - Parameters:
    ///   - token: the registration token.
    ///   - title: the title.
    ///   - body: the body.
    ///   - imageURL: the image (https).
    public init(token: String, title: String? = nil, body: String? = nil, imageURL: String? = nil) {
        self.token = token
        self.title = title
        self.body = body
        self.imageURL = imageURL
    }

    /// The request body: `{"message": {token, notification, data, apns: {headers, payload, fcm_options}}}`.
    public var requestBody: JSONValue {
        var notification: [String: JSONValue] = [:]
        notification["title"] = title.map(JSONValue.string)
        notification["body"] = body.map(JSONValue.string)
        notification["image"] = imageURL.map(JSONValue.string)

        var payload = PushPayload(title: title, body: body)
        payload.mediaKeyPath = mediaKeyPath
        payload.mediaURL = imageURL
        var apns: [String: JSONValue] = ["payload": payload.jsonValue()]
        if let imageURL { apns["fcm_options"] = .object(["image": .string(imageURL)]) }
        if !apnsHeaders.isEmpty { apns["headers"] = .object(apnsHeaders.mapValues(JSONValue.string)) }

        var message: [String: JSONValue] = ["token": .string(token), "apns": .object(apns)]
        if !notification.isEmpty { message["notification"] = .object(notification) }
        var allData = data
        if let imageURL, allData[mediaKeyPath.description] == nil { allData[mediaKeyPath.description] = imageURL }
        if !allData.isEmpty { message["data"] = .object(allData.mapValues(JSONValue.string)) }
        return .object(["message": .object(message)])
    }
}
