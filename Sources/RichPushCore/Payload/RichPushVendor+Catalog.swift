extension RichPushVendor {
    // Each entry was checked against the vendor's own iOS SDK source or documentation (named in
    // its comment); nothing of theirs is copied. Where a key could not be checked, the entry says
    // so (`idKind == .unverified`, or no media key) rather than guessing.

    /// Firebase Cloud Messaging. Media: `fcm_options.image` (firebase-ios-sdk,
    /// FirebaseMessaging/Sources/FIRMessagingExtensionHelper.m: `kPayloadOptionsName` "fcm_options",
    /// `kPayloadOptionsImageURLName` "image"). Id: `gcm.message_id` (the FCM message id, one per send).
    public static let firebase = RichPushVendor(
        identifier: "firebase", name: "Firebase", markers: ["gcm.message_id", "fcm_options"],
        mediaKeyPaths: ["fcm_options.image"], pushIDKeyPaths: ["gcm.message_id"], idKind: .perMessage)

    /// OneSignal. Media: `att`, a dictionary from attachment id to URL (or `os_data.att` in the
    /// newer format); id: `custom.i` (or `os_data.i`), the notification id (OneSignal-iOS-SDK,
    /// OneSignalCore/Source/OSNotification.m `parseOriginalPayload` / `parseOSDataPayload` /
    /// `parseCommonOneSignalFields`; OneSignalExtension/OneSignalAttachmentHandler.m
    /// `addAttachments:` iterates the dictionary).
    public static let oneSignal = RichPushVendor(
        identifier: "onesignal", name: "OneSignal", markers: ["custom.i", "os_data"],
        mediaKeyPaths: ["att", "os_data.att"], pushIDKeyPaths: ["custom.i", "os_data.i"], idKind: .perMessage)

    /// Airship. Media: `com.urbanairship.media_attachment.url`, an array of URLs (ios-library,
    /// UANotificationServiceExtension.swift `mediaAttachmentPayload`, MediaAttachmentPayload);
    /// id: `_`, the push (send) id (AirshipEvents.swift `pushReceivedEvent`: `notification["_"]` as
    /// `push_id`).
    public static let airship = RichPushVendor(
        identifier: "airship", name: "Airship", markers: ["com.urbanairship.metadata", "com.urbanairship.media_attachment", "_"],
        mediaKeyPaths: ["com.urbanairship.media_attachment.url"], pushIDKeyPaths: ["_"], idKind: .perMessage)

    /// Braze. Media: `ab.att.url` (Braze documentation, iOS push integration, "Configuring the
    /// service extension to work with Braze": `ab` → `att` → `url`, `type`). Id: not verified (the
    /// Braze Swift SDK ships its service extension as a binary; its documentation names no message
    /// id key), so the sender adds `push_id` as a key-value pair.
    public static let braze = RichPushVendor(
        identifier: "braze", name: "Braze", markers: ["ab"], mediaKeyPaths: ["ab.att.url"], pushIDKeyPaths: [],
        idKind: .unverified, note: "add a key-value pair push_id (Braze: apple_push.extra) with the message's id")

    /// Iterable. Media: `itbl.attachment-url`; id: `itbl.messageId` (swift-sdk,
    /// notification-extension/NotificationExtensionConstants.swift `JsonKey.Payload`,
    /// NotificationContentParser.swift `getIterableMessageId`).
    public static let iterable = RichPushVendor(
        identifier: "iterable", name: "Iterable", markers: ["itbl"], mediaKeyPaths: ["itbl.attachment-url"],
        pushIDKeyPaths: ["itbl.messageId"], idKind: .perMessage)

    /// CleverTap. Media: `ct_mediaUrl` (CTNotificationService, CTNotificationServiceExtension.m
    /// `kMediaUrlKey`); id: `wzrk_id`, the campaign's notification id (clevertap-ios-sdk,
    /// CleverTapSDK/CTConstants.h `CLTAP_NOTIFICATION_ID_TAG`).
    public static let cleverTap = RichPushVendor(
        identifier: "clevertap", name: "CleverTap", markers: ["wzrk_id", "wzrk_acct_id", "ct_mediaUrl"], mediaKeyPaths: ["ct_mediaUrl"],
        pushIDKeyPaths: ["wzrk_id"], idKind: .perMessage)

    /// MoEngage. Recognised by its `moengage` dictionary (MoEngage developer documentation,
    /// "Custom Notification Handling", silent push sample). Its media and id keys are not verified:
    /// the SDK ships binary (MORichNotification's MOPushPayload.h names `mediaAttachment` and
    /// `campaignID` properties, not their keys), so RichPush reads neither by default.
    public static let moEngage = RichPushVendor(
        identifier: "moengage", name: "MoEngage", markers: ["moengage"], mediaKeyPaths: [], pushIDKeyPaths: [],
        idKind: .unverified,
        note: "add push_id at the top level and the media URL as image-url, or name MoEngage's keys in MediaKeyPaths and PushIDKeyPaths")

    /// Pushwoosh. Media: `attachment` (pushwoosh-ios-sdk, Pushwoosh/Public/PWNotificationServiceProcessor.m);
    /// id: `p`, the message hash (PushwooshCore/Public/PWMessage.m; Pushwoosh's own check is `pw_msg`).
    public static let pushwoosh = RichPushVendor(
        identifier: "pushwoosh", name: "Pushwoosh", markers: ["pw_msg"], mediaKeyPaths: ["attachment"], pushIDKeyPaths: ["p"],
        idKind: .perMessage)

    /// Customer.io. Media: `CIO.push.image`; `CIO-Delivery-ID` identifies one delivery, not the
    /// message (customerio-ios, Sources/MessagingPush/Type/PushNotification.swift `cioImage`,
    /// `cioDelivery`), so it is not a push id.
    public static let customerIO = RichPushVendor(
        identifier: "customerio", name: "Customer.io", markers: ["CIO-Delivery-ID", "CIO"], mediaKeyPaths: ["CIO.push.image"],
        pushIDKeyPaths: [], otherIDKeyPaths: ["CIO-Delivery-ID"], idKind: .perDelivery,
        note: "add a top-level push_id (the same for every device) to the push's payload")

    /// Expo. Expo's push service delivers the message's `data` object as `body`, next to
    /// `experienceId`, `scopeKey` and `projectId`, and no message id (expo, packages/expo-notifications/
    /// ios/Tests/BackgroundEventTransformerTests.swift). A message's `richContent.image` arrives in
    /// the data as `_richContent` (expo, apps/test-suite/tests/Notifications.js: the received
    /// notification's data is the sent `data` plus `_richContent: richContent`), so as
    /// `body._richContent.image`: read out of the box. RichPush's own keys inside `body` work too:
    /// the sender adds `image-url` and `push_id` to `data`.
    public static let expo = RichPushVendor(
        identifier: "expo", name: "Expo", markers: ["experienceId", "scopeKey"], mediaKeyPaths: ["body._richContent.image", "body.image-url"],
        pushIDKeyPaths: ["body.push_id"], idKind: .absent, note: "add push_id to the message's data (Expo delivers it as body.push_id)")

    /// Amazon Pinpoint. Media: `data.media-url` (aws-amplify/amplify-swift-utils-notifications,
    /// Sources/AmplifyUtilsNotifications/Payloads/PinpointNotificationPayload.swift, used by
    /// AWSPinpointPushNotificationsPlugin's service extension). Id: not verified (no message id key
    /// in that source), so the sender adds `push_id`.
    public static let pinpoint = RichPushVendor(
        identifier: "pinpoint", name: "Amazon Pinpoint", markers: ["data.pinpoint", "data.media-url"], mediaKeyPaths: ["data.media-url"],
        pushIDKeyPaths: [], idKind: .unverified, note: "add a top-level push_id (a custom key of the APNs raw message) with the message's id")

    /// Batch. Media: `com.batch.at.u` (Batch-iOS-SDK extension, BAERichNotificationHelper.m
    /// `attachmentForPayload:`; Sources/Batch/BatchInbox.m `parseAttachment`); id: `com.batch.i`
    /// (Sources/Batch/Supporting Files/Defined.h `kWebserviceKeyPushBatchData`, `kWebserviceKeyPushId`).
    public static let batch = RichPushVendor(
        identifier: "batch", name: "Batch", markers: ["com.batch"], mediaKeyPaths: ["com.batch.at.u"], pushIDKeyPaths: ["com.batch.i"],
        idKind: .perMessage)

    /// Every vendor RichPush recognises, in the order they are recognised and their key paths tried.
    public static let all: [RichPushVendor] = [
        firebase, oneSignal, airship, braze, iterable, cleverTap, moEngage, pushwoosh, customerIO, expo, pinpoint, batch,
    ]
}
