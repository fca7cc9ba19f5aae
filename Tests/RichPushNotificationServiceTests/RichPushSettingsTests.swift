import Foundation
@_spi(RichPushInternal) import RichPushExtension
@_spi(RichPushInternal) import RichPushNotificationService
import RichPushTestSupport
import Testing

/// The Info.plist `RichPush` dictionary: good values are used, bad ones reported and defaulted.
@Suite struct RichPushSettingsTests {
    @Test func noDictionaryGivesThePipelineDefaults() {
        let settings = RichPushSettings.read(infoDictionary: ["CFBundleIdentifier": "com.example.app.service"])
        #expect(settings.problems.isEmpty)
        #expect(settings.pipeline.mediaKeyPaths == RichPushPayloadKeyPath.defaultMediaKeyPaths)
        #expect(settings.pipeline.deadline == 25)
        #expect(settings.pipeline.receiptsURL == nil)
        #expect(settings.appGroupIdentifier == nil)
        // No default body unless configured; a category per media kind; four button slots.
        #expect(settings.pipeline.defaultBody == nil)
        #expect(settings.pipeline.mediaCategoryIdentifiers == [.image: "image", .video: "video", .audio: "audio"])
        #expect(settings.pipeline.buttonCategorySlots == 4)
        #expect(settings.pipeline.additionalAttachmentFormats.isEmpty)
    }

    @Test func everyKeyIsRead() {
        let settings = RichPushSettings.read(infoDictionary: [
            "RichPush": [
                "ReceiptsURL": "https://stats.example.com/v1/receipts",
                "MediaKeyPaths": ["data.image", "image-url"],
                "PushIDKeyPaths": ["data.id"],
                "DefaultBody": "Tap to see it",
                "MediaCategoryIdentifiers": ["image": "photo", "audio": ""],
                "ButtonCategorySlots": 2,
                "AdditionalAttachmentTypes": ["com.apple.quicktime-movie"],
                "Deadline": NSNumber(value: 20.5),
                "AllowedHTTPHosts": ["Media.Example.com"],
                "AppGroupIdentifier": "group.com.example.app",
            ] as [String: Any]
        ])
        #expect(settings.problems.isEmpty)
        #expect(settings.pipeline.receiptsURL?.absoluteString == "https://stats.example.com/v1/receipts")
        // Key paths add to the defaults, tried first; a default they repeat keeps their place.
        #expect(
            settings.pipeline.mediaKeyPaths.map(\.description)
                == ["data.image", "image-url"] + RichPushPayloadKeyPath.defaultMediaKeyPaths.map(\.description).filter { $0 != "image-url" })
        #expect(settings.pipeline.pushIDKeyPaths.map(\.description) == ["data.id"] + RichPushPayloadKeyPath.defaultPushIDKeyPaths.map(\.description))
        #expect(settings.pipeline.defaultBody == "Tap to see it")
        #expect(settings.pipeline.mediaCategoryIdentifiers == [.image: "photo", .video: "video"])
        #expect(settings.pipeline.buttonCategorySlots == 2)
        #expect(settings.pipeline.additionalAttachmentFormats == [.quickTime])
        #expect(settings.pipeline.deadline == 20.5)
        #expect(settings.pipeline.allowedHTTPHosts == ["media.example.com"])
        #expect(settings.appGroupIdentifier == "group.com.example.app")
    }

    @Test func replaceUsesOnlyTheGivenKeyPaths() {
        let settings = RichPushSettings.read(infoDictionary: [
            "RichPush": [
                "MediaKeyPaths": ["data.image"], "MediaKeyPathsReplace": true,
                "PushIDKeyPaths": ["data.id"], "PushIDKeyPathsReplace": false,
            ] as [String: Any]
        ])
        #expect(settings.problems.isEmpty)
        #expect(settings.pipeline.mediaKeyPaths.map(\.description) == ["data.image"])
        #expect(settings.pipeline.pushIDKeyPaths.first?.description == "data.id")
        #expect(settings.pipeline.pushIDKeyPaths.count == 1 + RichPushPayloadKeyPath.defaultPushIDKeyPaths.count)
        let noPaths = RichPushSettings.read(infoDictionary: ["RichPush": ["PushIDKeyPathsReplace": true, "MediaKeyPathsReplace": "yes"]])
        #expect(noPaths.pipeline.pushIDKeyPaths == RichPushPayloadKeyPath.defaultPushIDKeyPaths)
        #expect(noPaths.problems.count == 2)
    }

    @Test func emptyStringsTurnTheContentRulesOffAndOneCategoryServesEveryKind() {
        let settings = RichPushSettings.read(infoDictionary: ["RichPush": ["DefaultBody": "", "MediaCategoryIdentifier": ""]])
        #expect(settings.problems.isEmpty)
        #expect(settings.pipeline.defaultBody == nil)
        #expect(settings.pipeline.mediaCategoryIdentifiers.isEmpty)
        let one = RichPushSettings.read(infoDictionary: ["RichPush": ["MediaCategoryIdentifier": "media"]])
        #expect(one.pipeline.mediaCategoryIdentifiers == [.image: "media", .video: "media", .audio: "media"])
    }

    @Test func badValuesAreReportedAndTheDefaultsKept() {
        let settings = RichPushSettings.read(infoDictionary: [
            "RichPush": [
                "ReceiptsURL": "stats.example.com/receipts",
                "MediaKeyPaths": "aps.alert.image",
                "PushIDKeyPaths": [Int](),
                "DefaultBody": 42,
                "Deadline": NSNumber(value: 45),
                "AllowedHTTPHosts": [1, 2],
                "AppGroupIdentifier": "com.example.app",
                "ReceiptURL": "typo",
                "MediaCategoryIdentifiers": ["picture": "p"],
                "ButtonCategorySlots": 17,
                "AdditionalAttachmentTypes": ["org.webmproject.webp"],
            ] as [String: Any]
        ])
        #expect(settings.pipeline.receiptsURL == nil)
        #expect(settings.pipeline.mediaKeyPaths == RichPushPayloadKeyPath.defaultMediaKeyPaths)
        #expect(settings.pipeline.pushIDKeyPaths == RichPushPayloadKeyPath.defaultPushIDKeyPaths)
        #expect(settings.pipeline.defaultBody == nil)
        #expect(settings.pipeline.deadline == 25)
        #expect(settings.pipeline.allowedHTTPHosts.isEmpty)
        #expect(settings.appGroupIdentifier == nil)
        #expect(settings.pipeline.mediaCategoryIdentifiers == RichPushConfiguration.defaultMediaCategoryIdentifiers)
        #expect(settings.pipeline.buttonCategorySlots == 4)
        #expect(settings.pipeline.additionalAttachmentFormats.isEmpty)
        let keys = [
            "ReceiptsURL", "MediaKeyPaths", "PushIDKeyPaths", "DefaultBody", "Deadline", "AllowedHTTPHosts", "AppGroupIdentifier", "ReceiptURL",
            "MediaCategoryIdentifiers", "ButtonCategorySlots", "AdditionalAttachmentTypes",
        ]
        for key in keys {
            #expect(settings.problems.contains { $0.hasPrefix("RichPush.\(key) ") }, "no problem reported for \(key)")
        }
        #expect(settings.problems.count == keys.count)
    }

    @Test func aDeadlineIsANumberOfSecondsNotABoolean() {
        #expect(RichPushSettings.read(infoDictionary: ["RichPush": ["Deadline": 1]]).pipeline.deadline == 1)
        #expect(RichPushSettings.read(infoDictionary: ["RichPush": ["Deadline": 29.0]]).pipeline.deadline == 29)
        let boolean = RichPushSettings.read(infoDictionary: ["RichPush": ["Deadline": true]])
        #expect(boolean.pipeline.deadline == 25)
        #expect(boolean.problems.count == 1)
    }

    @Test func aRealInfoPlistIsRead() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>RichPush</key><dict>
              <key>Deadline</key><real>12.5</real>
              <key>AllowedHTTPHosts</key><array><string>media.example.com</string></array>
              <key>DefaultBody</key><true/>
            </dict></dict></plist>
            """
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(xml.utf8), format: nil) as? [String: Any])
        let settings = RichPushSettings.read(infoDictionary: plist)
        #expect(settings.pipeline.deadline == 12.5)
        #expect(settings.pipeline.allowedHTTPHosts == ["media.example.com"])
        #expect(settings.pipeline.defaultBody == nil)
        #expect(settings.problems.count == 1)
    }

    @Test func theExampleInfoPlistHasNoProblems() throws {
        let url = Fixtures.packageRoot.appendingPathComponent("Examples/NotificationServiceExtension/Info.plist")
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        let settings = RichPushSettings.read(infoDictionary: plist)
        #expect(settings.problems == [])
        #expect(settings.pipeline.receiptsURL?.host == "stats.example.com")
        #expect(settings.appGroupIdentifier == "group.com.example.app")
        // Its own key paths come first and the defaults stay: pushes from `richpush send
        // --push-id` / POST /v1/pushes (top-level push_id) and Firebase's fcm_options.image work.
        #expect(settings.pipeline.pushIDKeyPaths.map(\.description) == ["data.push_id"] + RichPushPayloadKeyPath.defaultPushIDKeyPaths.map(\.description))
        #expect(settings.pipeline.mediaKeyPaths.map(\.description) == ["data.image"] + RichPushPayloadKeyPath.defaultMediaKeyPaths.map(\.description))
        #expect(settings.pipeline.defaultBody == nil)
        let ns = try #require(plist["NSExtension"] as? [String: Any])
        #expect(ns["NSExtensionPointIdentifier"] as? String == "com.apple.usernotifications.service")
    }

    @Test func aDictionaryOfTheWrongTypeIsReported() {
        let settings = RichPushSettings.read(infoDictionary: ["RichPush": "https://stats.example.com"])
        #expect(settings.problems.count == 1)
        #expect(settings.pipeline.receiptsURL == nil)
    }
}

/// The app reads the extension's settings from the extension's own Info.plist (issue 18): one source.
@Suite struct EmbeddedExtensionSettingsTests {
    @Test func theAppReadsTheEmbeddedServiceExtensionsRichPushDictionary() throws {
        let root = try Fixtures.temporaryDirectory("richpush-app-bundle")
        defer { try? FileManager.default.removeItem(at: root) }
        let app = root.appendingPathComponent("Shop.app", isDirectory: true)
        let plugIns = app.appendingPathComponent("PlugIns", isDirectory: true)
        func write(_ plist: [String: Any], to folder: URL) throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: folder.appendingPathComponent("Info.plist"))
        }
        try write(["CFBundleIdentifier": "com.example.shop", "CFBundleExecutable": "Shop", "CFBundlePackageType": "APPL"], to: app)
        // A widget extension first (sorted before the service), which must be skipped.
        try write(
            ["CFBundleIdentifier": "com.example.shop.a-widget", "NSExtension": ["NSExtensionPointIdentifier": "com.apple.widgetkit-extension"]],
            to: plugIns.appendingPathComponent("AWidget.appex"))
        try write(
            [
                "CFBundleIdentifier": "com.example.shop.service",
                "NSExtension": ["NSExtensionPointIdentifier": "com.apple.usernotifications.service"],
                "RichPush": [
                    "ReceiptsURL": "https://stats.example.com/v1/receipts", "AppGroupIdentifier": "group.com.example.shop",
                    "PushIDKeyPaths": ["data.id"],
                ] as [String: Any],
            ], to: plugIns.appendingPathComponent("NotificationService.appex"))
        let bundle = try #require(Bundle(url: app))
        let settings = try #require(RichPushSettings.serviceExtension(in: bundle))
        #expect(settings.pipeline.receiptsURL?.absoluteString == "https://stats.example.com/v1/receipts")
        #expect(settings.appGroupIdentifier == "group.com.example.shop")
        #expect(settings.pipeline.pushIDKeyPaths.first == "data.id")
        // An app without a service extension: nothing to read.
        try FileManager.default.removeItem(at: plugIns.appendingPathComponent("NotificationService.appex"))
        #expect(RichPushSettings.serviceExtension(in: try #require(Bundle(url: app))) == nil)
    }
}
