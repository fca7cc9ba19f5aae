import Foundation
import RichPushCore
import Testing

/// Issue 30: a message's payload keys (`sender`, `conversation`), how they are read and written,
/// and what the lint says about them and about interruption levels.
@Suite("Message payload keys and interruption-level lint")
struct MessagePayloadTests {
    func json(_ text: String) throws -> RichPushJSONValue { try RichPushJSONValue.parse(Data(text.utf8)) }

    @Test func aGroupMessageIsReadWithEveryField() throws {
        let reading = RichPushMessage.read(
            from: try json(
                #"{"sender": {"id": "u-42", "name": " Ada Lovelace ", "avatar": "https://cdn.example.com/ada.jpg"}, "conversation": {"id": 7, "name": "Engine room", "avatar": "https://cdn.example.com/room.png", "group": true}}"#
            ))
        #expect(reading.problems.isEmpty)
        #expect(reading.senderKeyPath == "sender")
        let message = try #require(reading.message)
        #expect(message.sender == RichPushMessage.Sender(id: "u-42", name: "Ada Lovelace", avatar: "https://cdn.example.com/ada.jpg"))
        #expect(message.conversation == RichPushMessage.Conversation(id: "7", name: "Engine room", avatar: "https://cdn.example.com/room.png", isGroup: true))
    }

    @Test func withoutAConversationItIsTheOneToOneConversationWithTheSender() throws {
        let message = try #require(RichPushMessage.read(from: try json(#"{"sender": {"id": "u-1", "name": "Ada"}}"#)).message)
        #expect(message.conversation == RichPushMessage.Conversation(id: "u-1"))
        #expect(message.conversationJSON == nil)
        #expect(message.senderJSON == (try json(#"{"id": "u-1", "name": "Ada"}"#)))
    }

    @Test func configuredKeyPathsAreTriedInOrder() throws {
        let payload = try json(
            #"{"data": {"from": {"id": "a", "name": "A"}, "chat": {"id": "c", "group": true, "name": "G"}}, "sender": {"id": "b", "name": "B"}}"#)
        let reading = RichPushMessage.read(from: payload, senderKeyPaths: ["data.from", "sender"], conversationKeyPaths: ["data.chat"])
        #expect(reading.message?.sender.id == "a")
        #expect(reading.message?.conversation.isGroup == true)
        #expect(reading.senderKeyPath == "data.from")
    }

    @Test func eachWrongFieldIsNamedAndStopsTheMessage() throws {
        let cases: [(String, String)] = [
            (#"{"sender": "Ada"}"#, "sender"),
            (#"{"sender": {"name": "Ada"}}"#, "sender.id"),
            (#"{"sender": {"id": "", "name": "Ada"}}"#, "sender.id"),
            (#"{"sender": {"id": "u", "name": 5}}"#, "sender.name"),
            (#"{"sender": {"id": "u", "name": "Ada"}, "conversation": {"name": "G"}}"#, "conversation.id"),
            (#"{"sender": {"id": "u", "name": "Ada"}, "conversation": {"id": "c", "group": "yes"}}"#, "conversation.group"),
            (#"{"conversation": {"id": "c"}}"#, "conversation"),
            (#"{"sender": {"id": true, "name": "Ada"}}"#, "sender.id"),
        ]
        for (text, path) in cases {
            let reading = RichPushMessage.read(from: try json(text))
            #expect(reading.message == nil, "\(text)")
            #expect(reading.problems.first?.keyPath == path, "\(text): \(reading.problems)")
            #expect(reading.problems.first?.isError == true, "\(text)")
        }
        let long = String(repeating: "é", count: 300)
        #expect(RichPushMessage.read(from: .object(["sender": .object(["id": .string("u"), "name": .string(long)])])).message == nil)
    }

    @Test func softProblemsKeepTheMessage() throws {
        let reading = RichPushMessage.read(
            from: try json(#"{"sender": {"id": "u", "name": "Ada", "avatar": "ftp://x/a.png"}, "conversation": {"id": "c", "group": true}}"#))
        #expect(reading.message != nil)
        #expect(reading.message?.sender.avatar == nil)
        #expect(reading.problems.map(\.keyPath) == ["sender.avatar", "conversation.name"])
        #expect(reading.problems.allSatisfy { !$0.isError })
    }

    @Test func theBuilderWritesTheKeysAndMutableContent() throws {
        var payload = RichPushPayloadBuilder(title: "Engine room", body: "It runs!")
        payload.message = RichPushMessage(
            sender: .init(id: "u-42", name: "Ada", avatar: "https://cdn.example.com/ada.jpg"),
            conversation: .init(id: "c-7", name: "Engine room", isGroup: true))
        let value = payload.jsonValue()
        #expect(value["aps"]?["mutable-content"] == .int(1))
        #expect(value["sender"] == (try json(#"{"id": "u-42", "name": "Ada", "avatar": "https://cdn.example.com/ada.jpg"}"#)))
        #expect(value["conversation"] == (try json(#"{"id": "c-7", "name": "Engine room", "group": true}"#)))
        #expect(RichPushPayloadLinter().lint(value).filter { $0.severity == .error }.isEmpty)
        #expect(RichPushMessage.read(from: value).message == payload.message)
    }

    @Test func theLintChecksAMessage() throws {
        let linter = RichPushPayloadLinter()
        func codes(_ text: String) throws -> [String] { linter.lint(try json(text)).map { "\($0.severity) \($0.code)" } }
        #expect(
            try codes(#"{"aps": {"alert": "hi", "mutable-content": 1}, "push_id": "p", "sender": {"id": "u"}}"#) == ["error invalid_sender"])
        #expect(
            try codes(
                #"{"aps": {"alert": "hi", "mutable-content": 1}, "push_id": "p", "sender": {"id": "u", "name": "A"}, "conversation": {"id": "c", "group": true}}"#
            )
                == ["warning invalid_conversation"])
        #expect(
            try codes(#"{"aps": {"alert": "hi", "mutable-content": 1}, "push_id": "p", "sender": {"id": "u", "name": "A", "avatar": "http://cdn/a.jpg"}}"#)
                == ["error insecure_avatar_url"])
        let missing = try json(#"{"aps": {"alert": "hi"}, "push_id": "p", "sender": {"id": "u", "name": "A"}}"#)
        #expect(linter.lint(missing).map(\.code) == [.mutableContentMissing])
        #expect(linter.lint(missing).first?.fixable == true)
        #expect(linter.fix(missing)["aps"]?["mutable-content"] == .int(1))
        #expect(linter.lint(linter.fix(missing)).isEmpty)
        #expect(
            try codes(#"{"aps": {"content-available": 1}, "sender": {"id": "u", "name": "A"}}"#).contains("error background_push_with_media"))
        // A message needs no media: no no_media_url warning, and the lookup names the sender.
        var looking = RichPushPayloadLinter()
        looking.checksExtensionLookup = true
        let message = try json(#"{"aps": {"alert": "hi", "mutable-content": 1}, "push_id": "p", "sender": {"id": "u-1", "name": "Ada"}}"#)
        #expect(looking.lint(message).isEmpty)
        #expect(looking.extensionLookup(message).summary.hasSuffix(", a message from Ada (u-1), no avatar"))
    }

    @Test func theLintWarnsOnCriticalWithoutASoundDictionaryAndOnRelevanceOutOfRange() throws {
        let linter = RichPushPayloadLinter()
        func codes(_ aps: String) throws -> [String] {
            linter.lint(try json(#"{"aps": {"alert": "Smoke", \#(aps)}, "push_id": "p"}"#)).map { "\($0.severity) \($0.code) \($0.keyPath ?? "")" }
        }
        #expect(try codes(#""interruption-level": "critical", "sound": "default""#) == ["warning critical_without_sound_dictionary aps.sound"])
        #expect(try codes(#""interruption-level": "critical""#) == ["warning critical_without_sound_dictionary aps.sound"])
        #expect(
            try codes(#""interruption-level": "critical", "sound": {"name": "default", "volume": 1}"#)
                == ["warning critical_without_sound_dictionary aps.sound.critical"])
        #expect(try codes(#""interruption-level": "critical", "sound": {"critical": 1, "name": "default", "volume": 1.0}"#).isEmpty)
        #expect(try codes(#""interruption-level": "time-sensitive", "sound": "default""#).isEmpty)
        for score in ["1.5", "-0.1", "\"0.5\""] {
            #expect(try codes(#""relevance-score": \#(score)"#) == ["warning relevance_score_range aps.relevance-score"], "\(score)")
        }
        for score in ["0", "0.25", "1"] { #expect(try codes(#""relevance-score": \#(score)"#).isEmpty, "\(score)") }
    }
}
