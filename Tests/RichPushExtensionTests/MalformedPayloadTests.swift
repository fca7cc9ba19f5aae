import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

@Suite("Malformed payloads")
struct MalformedPayloadTests {
    static let inputs: [(String, Data)] = [
        ("not JSON", Data("{\"aps\": {\"alert\": ".utf8)),
        ("aps a string", Data(#"{"aps": "hello", "push_id": "p1"}"#.utf8)),
        ("alert a number", Data(#"{"aps": {"alert": 42, "mutable-content": 1}}"#.utf8)),
        ("a top-level array", Data(#"[{"aps": {}}]"#.utf8)),
        ("binary bytes", Data([0xFF, 0x00, 0xFE, 0x80])),
        ("1 MB of nesting", Data((String(repeating: "[", count: 500_000) + String(repeating: "]", count: 500_000)).utf8)),
        ("1 MB of object nesting", Data((String(repeating: "{\"a\":", count: 200_000) + "1" + String(repeating: "}", count: 200_000)).utf8)),
    ]

    @Test("a payload that cannot be read is delivered as the original, reason invalid_payload", arguments: 0..<inputs.count)
    func malformed(_ index: Int) async throws {
        let (name, data) = Self.inputs[index]
        let configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let counter = DeliveryCounter()
        let run = NotificationPipeline(configuration: configuration).start(payload: data) { counter.record($0) }
        let result = await run.result()
        await run.waitUntilSettled()
        #expect(result.outcome == .original, "\(name)")
        #expect(result.reason == .invalidPayload, "\(name)")
        #expect(result.content.attachments.isEmpty)
        #expect(counter.all.count == 1)
    }

    @Test("what can be shown of a malformed payload is kept")
    func keepsReadableText() async throws {
        let configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let data = Data(#"{"aps": {"alert": {"title": "Hello", "body": "World"}, "badge": "three", "sound": "default"}, "push_id": 42}"#.utf8)
        let result = await NotificationPipeline(configuration: configuration).process(payload: data)
        #expect(result.outcome == .original)
        #expect(result.reason == .invalidPayload)
        #expect(result.content.title == "Hello")
        #expect(result.content.body == "World")
        #expect(result.content.sound == "default")
        #expect(result.content.badge == nil)
        #expect(result.pushID == "42")
    }
}
