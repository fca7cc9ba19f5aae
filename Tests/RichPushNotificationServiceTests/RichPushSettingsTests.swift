import Foundation
import RichPushExtension
import RichPushNotificationService
import Testing

/// The Info.plist `RichPush` dictionary: good values are used, bad ones reported and defaulted.
@Suite struct RichPushSettingsTests {
    @Test func noDictionaryGivesThePipelineDefaults() {
        let settings = RichPushSettings.read(infoDictionary: ["CFBundleIdentifier": "com.example.app.service"])
        #expect(settings.problems.isEmpty)
        #expect(settings.pipeline.mediaKeyPaths == PayloadKeyPath.defaultMediaKeyPaths)
        #expect(settings.pipeline.deadline == 25)
        #expect(settings.pipeline.receiptsURL == nil)
        #expect(settings.appGroupIdentifier == nil)
    }

    @Test func everyKeyIsRead() {
        let settings = RichPushSettings.read(infoDictionary: [
            "RichPush": [
                "ReceiptsURL": "https://stats.example.com/v1/receipts",
                "MediaKeyPaths": ["data.image", "image-url"],
                "PushIDKeyPaths": ["data.id"],
                "DefaultBody": "Tap to see it",
                "MediaCategoryIdentifier": "photo",
                "Deadline": NSNumber(value: 20.5),
                "AllowedHTTPHosts": ["Media.Example.com"],
                "AppGroupIdentifier": "group.com.example.app",
            ] as [String: Any]
        ])
        #expect(settings.problems.isEmpty)
        #expect(settings.pipeline.receiptsURL?.absoluteString == "https://stats.example.com/v1/receipts")
        #expect(settings.pipeline.mediaKeyPaths.map(\.description) == ["data.image", "image-url"])
        #expect(settings.pipeline.pushIDKeyPaths.map(\.description) == ["data.id"])
        #expect(settings.pipeline.defaultBody == "Tap to see it")
        #expect(settings.pipeline.mediaCategoryIdentifier == "photo")
        #expect(settings.pipeline.deadline == 20.5)
        #expect(settings.pipeline.allowedHTTPHosts == ["media.example.com"])
        #expect(settings.appGroupIdentifier == "group.com.example.app")
    }

    @Test func emptyStringsTurnTheContentRulesOff() {
        let settings = RichPushSettings.read(infoDictionary: ["RichPush": ["DefaultBody": "", "MediaCategoryIdentifier": ""]])
        #expect(settings.problems.isEmpty)
        #expect(settings.pipeline.defaultBody == nil)
        #expect(settings.pipeline.mediaCategoryIdentifier == nil)
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
            ] as [String: Any]
        ])
        #expect(settings.pipeline.receiptsURL == nil)
        #expect(settings.pipeline.mediaKeyPaths == PayloadKeyPath.defaultMediaKeyPaths)
        #expect(settings.pipeline.pushIDKeyPaths == PayloadKeyPath.defaultPushIDKeyPaths)
        #expect(settings.pipeline.defaultBody == PipelineConfiguration.articleDefaultBody)
        #expect(settings.pipeline.deadline == 25)
        #expect(settings.pipeline.allowedHTTPHosts.isEmpty)
        #expect(settings.appGroupIdentifier == nil)
        let keys = ["ReceiptsURL", "MediaKeyPaths", "PushIDKeyPaths", "DefaultBody", "Deadline", "AllowedHTTPHosts", "AppGroupIdentifier", "ReceiptURL"]
        for key in keys {
            #expect(settings.problems.contains { $0.hasPrefix("RichPush.\(key) ") }, "no problem reported for \(key)")
        }
        #expect(settings.problems.count == keys.count)
    }

    @Test func aDictionaryOfTheWrongTypeIsReported() {
        let settings = RichPushSettings.read(infoDictionary: ["RichPush": "https://stats.example.com"])
        #expect(settings.problems.count == 1)
        #expect(settings.pipeline.receiptsURL == nil)
    }
}
