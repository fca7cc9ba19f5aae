/// The content rules: text first (before any network work), then what media adds.
struct ContentRules: Sendable {
    let defaultBody: String?
    let mediaCategoryIdentifiers: [RichPushMediaKind: String]

    /// The best attempt: the payload's text with the default body when the body is empty.
    func bestAttempt(from payload: RichPushNotificationPayload) -> RichPushNotificationContent {
        var content = RichPushNotificationContent(payload: payload)
        if let defaultBody, content.body.isEmpty {
            content.body = defaultBody
        }
        return content
    }

    /// Adds the attachment, and its kind's media category when the payload names none.
    func attaching(_ media: RichPushDownloadedMedia, to content: RichPushNotificationContent) -> RichPushNotificationContent {
        var content = content
        content.attachments = [
            RichPushNotificationContent.Attachment(
                identifier: media.format.kind?.rawValue ?? "media",
                file: media.file.path,
                type: media.format.uniformTypeIdentifier,
                bytes: media.bytes
            )
        ]
        if content.categoryIdentifier.isEmpty, let kind = media.format.kind, let category = mediaCategoryIdentifiers[kind] {
            content.categoryIdentifier = category
        }
        return content
    }

    /// What can be shown of a payload that did not parse: any strings in the usual places, no rules.
    static func original(from json: RichPushJSONValue?) -> RichPushNotificationContent {
        var content = RichPushNotificationContent()
        guard let aps = json?["aps"]?.objectValue else { return content }
        switch aps["alert"] {
        case .string(let body)?:
            content.body = body.value
        case .object(let alert)?:
            content.title = alert["title"]?.stringValue ?? ""
            content.subtitle = alert["subtitle"]?.stringValue ?? ""
            content.body = alert["body"]?.stringValue ?? ""
        default:
            break
        }
        content.categoryIdentifier = aps["category"]?.stringValue ?? ""
        content.threadIdentifier = aps["thread-id"]?.stringValue ?? ""
        content.badge = aps["badge"]?.intValue
        content.sound = aps["sound"]?.stringValue
        return content
    }
}
