import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@Suite struct PayloadLinterTests {
    let linter = PayloadLinter()

    func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Data(text.utf8)) }
    func codes(_ text: String) throws -> [LintFinding.Code] { linter.lint(try json(text)).map(\.code) }

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
        let fixed = linter.fix(try JSONValue.parse(data))
        #expect(linter.lint(fixed).isEmpty)
        let delivered = try JSONValue.parse(try Fixtures.payload("seed001-fcm-as-delivered.json"))
        #expect(fixed["aps"] == delivered["aps"])
        #expect(fixed["image-url"] == delivered["image-url"])
    }

    @Test(arguments: [
        (#"{"aps":{"alert":"a","mutable-content":"1"},"image-url":"https://x.example/a.jpg"}"#, LintFinding.Code.mutableContentString, "aps.mutable-content"),
        (#"{"aps":{"alert":"a","mutable-content":true},"image-url":"https://x.example/a.jpg"}"#, .mutableContentBool, "aps.mutable-content"),
        (#"{"aps":{"alert":"a","mutable_content":1},"image-url":"https://x.example/a.jpg"}"#, .mutableContentUnderscore, "aps.mutable_content"),
        (#"{"aps":{"alert":"a"},"mutable_content":1,"image-url":"https://x.example/a.jpg"}"#, .mutableContentUnderscore, "mutable_content"),
        (#"{"aps":{"alert":"a"},"mutable-content":1,"image-url":"https://x.example/a.jpg"}"#, .mutableContentOutsideAPS, "mutable-content"),
        (#"{"aps":{"alert":"a"},"image-url":"https://x.example/a.jpg"}"#, .mutableContentMissing, "aps.mutable-content"),
    ])
    func eachWrongSpellingIsAnErrorByNameAndFixIsClean(text: String, code: LintFinding.Code, key: String) throws {
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
        let payload = JSONValue.object(["aps": .object(["alert": .string(body)])])
        let size = payload.jsonData(sortedKeys: false).count
        let finding = try #require(linter.lint(payload).first { $0.code == .payloadTooLarge })
        #expect(finding.message.contains("\(size) bytes"))
        #expect(finding.message.contains("4096"))
        // The same payload fits the VoIP limit of 5120 bytes.
        #expect(PayloadLinter(voip: true).lint(payload).isEmpty)
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
}
