import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@Suite struct PayloadLinterTests {
    let linter = RichPushPayloadLinter()

    func json(_ text: String) throws -> RichPushJSONValue { try RichPushJSONValue.parse(Data(text.utf8)) }

    @Test("a finding's line names no command-line option; a program adds its own for the fix (richpush lint: --fix)")
    func findingLineLeavesTheFixOptionToTheProgram() throws {
        let finding = try #require(linter.lint(try json(#"{"aps":"hello"}"#)).first { $0.code == .wrongType })
        #expect(finding.fixable)
        #expect(!finding.message.contains("--") && !finding.description.contains("--"), "\(finding)")
        #expect(finding.description.hasSuffix(": \(finding.message) (fixable)"))
        #expect(finding.description(fixableWith: "--fix") == "error wrong_type aps: \(finding.message) (fixable with --fix)")
    }
    func codes(_ text: String) throws -> [RichPushLintFinding.Code] { linter.lint(try json(text)).map(\.code) }

    @Test func everyArticleAPNsPayloadIsClean() throws {
        for name in try Fixtures.payloadNames() where name != "seed001-fcm-send.json" {
            let findings = linter.lint(try Fixtures.payload(name))
            #expect(findings.isEmpty, "\(name): \(findings)")
        }
    }

    @Test func theFCMLegacyPayloadOfArticle001IsAnErrorAndFixesToWhatFCMDelivers() throws {
        let data = try Fixtures.payload("seed001-fcm-send.json")
        let findings = linter.lint(data)
        #expect(findings.map(\.code) == [.fcmLegacyMutableContent])
        #expect(findings.first?.keyPath == "notification.mutable_content")
        let fixed = linter.fix(try RichPushJSONValue.parse(data))
        #expect(linter.lint(fixed).isEmpty)
        let delivered = try RichPushJSONValue.parse(try Fixtures.payload("seed001-fcm-as-delivered.json"))
        #expect(fixed["aps"] == delivered["aps"])
        #expect(fixed["image-url"] == delivered["image-url"])
    }

    @Test(arguments: [
        (
            #"{"aps":{"alert":"a","mutable-content":"1"},"image-url":"https://x.example/a.jpg"}"#, RichPushLintFinding.Code.mutableContentString,
            "aps.mutable-content"
        ),
        (#"{"aps":{"alert":"a","mutable-content":true},"image-url":"https://x.example/a.jpg"}"#, .mutableContentBool, "aps.mutable-content"),
        (#"{"aps":{"alert":"a","mutable_content":1},"image-url":"https://x.example/a.jpg"}"#, .mutableContentUnderscore, "aps.mutable_content"),
        (#"{"aps":{"alert":"a"},"mutable_content":1,"image-url":"https://x.example/a.jpg"}"#, .mutableContentUnderscore, "mutable_content"),
        (#"{"aps":{"alert":"a"},"mutable-content":1,"image-url":"https://x.example/a.jpg"}"#, .mutableContentOutsideAPS, "mutable-content"),
        (#"{"aps":{"alert":"a"},"image-url":"https://x.example/a.jpg"}"#, .mutableContentMissing, "aps.mutable-content"),
    ])
    func eachWrongSpellingIsAnErrorByNameAndFixIsClean(text: String, code: RichPushLintFinding.Code, key: String) throws {
        let findings = linter.lint(try json(text))
        let finding = try #require(findings.first { $0.code == code })
        #expect(finding.severity == .error)
        #expect(finding.keyPath == key)
        #expect(finding.fixable)
        #expect(finding.message.contains(key.split(separator: ".").last.map(String.init) ?? key))
        let fixed = linter.fix(try json(text))
        #expect(linter.lint(fixed).isEmpty, "\(linter.lint(fixed))")
        #expect(fixed["aps"]?["mutable-content"] == .int(1))
        #expect(fixed["mutable-content"] == nil && fixed["mutable_content"] == nil && fixed["aps"]?["mutable_content"] == nil)
    }

    @Test func aSizeErrorNamesTheLimitAndTheActualSize() throws {
        let body = String(repeating: "x", count: 5000)
        let payload = RichPushJSONValue.object(["aps": .object(["alert": .string(body)])])
        let size = payload.jsonData(sortedKeys: false).count
        let finding = try #require(linter.lint(payload).first { $0.code == .payloadTooLarge })
        #expect(finding.message.contains("\(size) bytes"))
        #expect(finding.message.contains("4096"))
        // The same payload fits the VoIP limit of 5120 bytes.
        #expect(RichPushPayloadLinter(voip: true).lint(payload).isEmpty)
    }

    @Test func backgroundPushWithMediaIsFlagged() throws {
        #expect(try codes(#"{"aps":{"content-available":1},"image-url":"https://x.example/a.jpg"}"#) == [.backgroundPushWithMedia])
    }

    @Test func mediaWithoutAVisibleAlertIsAnError() throws {
        #expect(try codes(#"{"aps":{"sound":"default","mutable-content":1},"url":"https://x.example/a.mp4"}"#) == [.mediaWithoutAlert])
    }

    @Test func mediaURLsMustBeHTTPS() throws {
        #expect(try codes(#"{"aps":{"alert":"a","mutable-content":1},"media-url":"http://x.example/a.jpg"}"#) == [.insecureMediaURL])
        #expect(try codes(#"{"aps":{"alert":"a","mutable-content":1},"media-url":"not a url"}"#) == [.badMediaURL])
    }

    @Test func cleartextToAnAllowedHostIsAWarningAndOtherHostsStayErrors() throws {
        var allowing = RichPushPayloadLinter()
        allowing.allowedHTTPHosts = ["media.example.com"]
        let payload = try json(
            #"{"aps":{"alert":"a","mutable-content":1},"media-url":"http://Media.Example.com/a.jpg","sender":{"id":"u1","name":"Ada","avatar":"http://media.example.com/ada.jpg"}}"#
        )
        let allowed = allowing.lint(payload).filter { [.insecureMediaURL, .insecureAvatarURL].contains($0.code) }
        #expect(allowed.map(\.severity) == [.warning, .warning], "\(allowed)")
        #expect(allowed.allSatisfy { $0.message.contains("allowed for this host (AllowedHTTPHosts and an App Transport Security exception)") })
        // Without the allowance, or for another host: errors saying ATS blocks it.
        let other = try json(#"{"aps":{"alert":"a","mutable-content":1},"media-url":"http://cdn.example.net/a.jpg"}"#)
        for (linter, data) in [(RichPushPayloadLinter(), payload), (allowing, other)] {
            let found = linter.lint(data).filter { [.insecureMediaURL, .insecureAvatarURL].contains($0.code) }
            #expect(!found.isEmpty && found.allSatisfy { $0.severity == .error && $0.message.contains("App Transport Security blocks it") }, "\(found)")
        }
    }

    @Test func notAnObjectAndMissingAPSAreErrors() throws {
        #expect(linter.lint(Data("[1]".utf8)).map(\.code) == [.invalidPayload])
        #expect(linter.lint(Data("{".utf8)).map(\.code) == [.invalidPayload])
        #expect(try codes(#"{"hello":1}"#) == [.missingAPS])
    }

    @Test func documentedTypesAndRangesAreWarnings() throws {
        let findings = linter.lint(try json(#"{"aps":{"alert":"a","badge":"3","interruption-level":"loud","relevance-score":2}}"#))
        #expect(findings.allSatisfy { $0.severity == .warning })
        #expect(Set(findings.map(\.code)) == [.wrongType, .unknownInterruptionLevel, .relevanceScoreRange])
    }

    @Test func aMisspelledAPSKeyOrLevelNamesWhatWasMeantAndAVolumeOutside0To1IsAWarning() throws {
        let findings = linter.lint(
            try json(
                #"{"aps":{"alert":"a","interuption-level":"time-sensitive","thread_id":"t","sound":{"critical":1,"name":"default","volume":2.5},"myapp":1}}"#
            ))
        #expect(findings.allSatisfy { $0.severity == .warning }, "\(findings)")
        let byKey = Dictionary(findings.map { ($0.keyPath ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byKey["aps.interuption-level"]?.code == .unknownAPSKey)
        #expect(byKey["aps.interuption-level"]?.message.contains("did you mean `interruption-level`?") == true)
        #expect(byKey["aps.thread_id"]?.message.contains("did you mean `thread-id`?") == true)
        // An app's own key: no guess, where it belongs instead.
        let own = try #require(byKey["aps.myapp"])
        #expect(own.code == .unknownAPSKey)
        #expect(!own.message.contains("did you mean") && own.message.contains("an app's own keys go outside aps"))
        #expect(byKey["aps.sound.volume"]?.code == .soundVolumeRange)
        #expect(byKey["aps.sound.volume"]?.message.contains("the number 2.5") == true, "\(byKey["aps.sound.volume"]?.message ?? "")")
        for (written, meant) in [("timesensitive", "time-sensitive"), ("time_sensitive", "time-sensitive"), ("Critical", "critical"), ("pasive", "passive")] {
            let level = linter.lint(try json(#"{"aps":{"alert":"a","interruption-level":"\#(written)"}}"#))
            #expect(level.map(\.code) == [.unknownInterruptionLevel])
            #expect(level.first?.message.contains("(did you mean \"\(meant)\"?)") == true, "\(written): \(level)")
        }
        #expect(linter.lint(try json(#"{"aps":{"alert":"a","interruption-level":"loud"}}"#)).first?.message.contains("did you mean") == false)
        // Every key Apple defines, and a volume in range: nothing.
        let clean =
            #"{"aps":{"alert":"a","badge":1,"sound":{"critical":1,"name":"default","volume":0.5},"thread-id":"t","category":"c","#
            + #""content-available":1,"mutable-content":1,"target-content-id":"x","interruption-level":"critical","#
            + #""relevance-score":0.5,"filter-criteria":"work"},"push_id":"p"}"#
        #expect(linter.lint(try json(clean)) == [])
    }

    // MARK: What the extension would take (issue 18)

    func lookupCodes(_ text: String) throws -> [RichPushLintFinding] {
        var linter = RichPushPayloadLinter()
        linter.checksExtensionLookup = true
        return linter.lint(try json(text)).filter { [.noMediaURL, .noPushID].contains($0.code) }
    }

    @Test func aOneSignalPayloadIsFoundWithItsMediaAndIDAndHasNoWarning() throws {
        var linter = RichPushPayloadLinter()
        linter.checksExtensionLookup = true
        let payload = try RichPushJSONValue.parse(try Fixtures.payload("vendors/onesignal.json"))
        #expect(linter.lint(payload).isEmpty)
        let lookup = linter.extensionLookup(payload)
        #expect(lookup.vendor == .oneSignal)
        #expect(lookup.media.urls == ["https://media.example.com/onesignal/photo.jpg"])
        #expect(lookup.pushID == "5f2b3c4d-6e7f-4a8b-9c0d-1e2f3a4b5c6d")
        #expect(lookup.summary.contains("(att)") && lookup.summary.contains("(custom.i)") && lookup.summary.contains("OneSignal payload"))
    }

    @Test func aOneSignalPayloadWithItsOwnPushIDInDataWarnsTwoPushIDs() throws {
        // docs/server.md once told OneSignal users to add data.push_id (custom.a.push_id) while the
        // extension reads custom.i first: receipts under one id, the recorded send under another.
        var linter = RichPushPayloadLinter()
        linter.checksExtensionLookup = true
        let both = try json(
            #"{"aps": {"alert": "Sale", "mutable-content": 1}, "att": {"id": "https://m.example.com/a.jpg"},"#
                + #" "custom": {"i": "5f2b3c4d-6e7f", "a": {"push_id": "spring-sale"}}}"#)
        let findings = linter.lint(both).filter { $0.code == .twoPushIDs }
        #expect(findings.count == 1)
        #expect(findings.first?.severity == .warning)
        #expect(findings.first?.keyPath == "custom.a.push_id")
        let message = try #require(findings.first?.message)
        #expect(message.contains("custom.i = 5f2b3c4d-6e7f") && message.contains("custom.a.push_id = spring-sale"), "\(message)")
        #expect(message.contains("record the send under 5f2b3c4d-6e7f"), "\(message)")
        // The same id in both places, or none in data: no warning.
        let same = try json(#"{"aps": {"alert": "Sale"}, "custom": {"i": "5f2b", "a": {"push_id": "5f2b"}}}"#)
        #expect(linter.lint(same).filter { $0.code == .twoPushIDs }.isEmpty)
        let fixture = try RichPushJSONValue.parse(try Fixtures.payload("vendors/onesignal.json"))
        #expect(linter.lint(fixture).filter { $0.code == .twoPushIDs }.isEmpty)
        // Off by default, like the other lookup findings.
        #expect(RichPushPayloadLinter().lint(both).filter { $0.code == .twoPushIDs }.isEmpty)
    }

    @Test func aOneSignalPayloadWhoseMediaTheExtensionWouldNotFindIsAWarningNamingTheKeysAndTheVendor() throws {
        let findings = try lookupCodes(
            #"{"aps": {"alert": "Sale", "mutable-content": 1}, "custom": {"i": "5f2b"}, "data": {"picture": "https://media.example.com/p.jpg"}}"#)
        #expect(findings.map(\.code) == [.noMediaURL])
        let message = try #require(findings.first?.message)
        #expect(message.contains("looked at aps.alert.image, image-url"))
        #expect(message.contains("att"))
        #expect(message.contains("recognised a OneSignal payload (custom.i)"), "\(message)")
    }

    @Test func noPushIDIsAWarningWithTheVendorsReason() throws {
        let customerIO = try lookupCodes(String(decoding: try Fixtures.payload("vendors/customerio.json"), as: UTF8.self))
        #expect(customerIO.map(\.code) == [.noPushID])
        #expect(customerIO.first?.message.contains("CIO-Delivery-ID identifies one delivery") == true)
        #expect(customerIO.first?.message.contains("no receipt would be sent") == true)
        let plain = try lookupCodes(#"{"aps": {"alert": "Hi"}}"#)
        #expect(plain.map(\.code) == [.noMediaURL, .noPushID])
        // Off by default: senders' checks are unchanged.
        #expect(try codes(#"{"aps": {"alert": "Hi"}}"#).isEmpty)
    }

    @Test func aDeepLinkURLIsNotABadMediaURL() throws {
        // Before: `url` = myapp://… was an error bad_media_url; it is a link, not media.
        #expect(try codes(#"{"aps": {"alert": "Hi", "mutable-content": 1}, "url": "myapp://article/42"}"#).isEmpty)
        let findings = try lookupCodes(#"{"aps": {"alert": "Hi", "mutable-content": 1}, "url": "myapp://article/42", "push_id": "1"}"#)
        #expect(findings.map(\.code) == [.noMediaURL])
        #expect(findings.first?.message.contains("url myapp://article/42 is a link, not media") == true)
    }
}
