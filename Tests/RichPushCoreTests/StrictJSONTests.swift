import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushTestSupport
import Testing

/// The strict RFC 8259 check that lint and every send path run before bytes go to APNs.
@Suite struct StrictJSONTests {
    func failure(_ text: String) -> String? {
        do {
            try RichPushJSONValue.validateStrictly(Data(text.utf8))
            return nil
        } catch let error as RichPushError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: [
        ("{\"aps\":{\"alert\":\"a\"},\"image-url\":\"https://x.example/a.jpg\",}", "line 1, column 59", "trailing comma"),
        ("[1,2,]", "line 1, column 5", "trailing comma"),
        ("{\"a\":1,\n \"a\":2}", "line 2, column 2", "duplicate key \"a\""),
        ("{\"a\":1,\"\\u0061\":2}", "line 1, column 8", "duplicate key \"a\""),
        ("{\"a\":1 // note\n}", "line 1, column 8", "comment"),
        ("{\"a\":NaN}", "line 1, column 6", "NaN"),
        ("{\"a\":-Infinity}", "line 1, column 6", "NaN and Infinity"),
        ("{'a':1}", "line 1, column 2", "single quote"),
        ("{\"a\":01}", "line 1, column 6", "leading zero"),
        ("{\"a\":1} x", "line 1, column 9", "extra text"),
        ("{\"a\":\"\u{1}\"}", "line 1, column 7", "control character"),
        ("{\"a\":\"\\x\"}", "line 1, column 7", "escape"),
        ("{\"é\":1,,}", "line 1, column 8", "expected a key"),
        ("", "line 1, column 1", "empty"),
        ("{\"a\":[1,2}", "line 1, column 10", "expected ',' or ']'"),
    ])
    func invalidJSONIsRefusedWithLineColumnAndWhatIsWrong(text: String, position: String, what: String) throws {
        let message = try #require(failure(text), "accepted: \(text)")
        #expect(message.contains(position), "\(message)")
        #expect(message.contains(what), "\(message)")
    }

    @Test func everyArticlePayloadAndValidEdgeCasesPass() throws {
        for name in try Fixtures.payloadNames() {
            #expect(failure(String(decoding: try Fixtures.payload(name), as: UTF8.self)) == nil, "\(name)")
        }
        for text in [
            "{}", "[]", " 0 ", "-0.5e+10", "\"\\ud83d\\ude00\"", "{\"a\":{\"a\":1},\"b\":[{\"a\":1},{\"a\":2}]}", "true", "null",
            "{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\", \"é\": \"日本\"}",
        ] {
            #expect(failure(text) == nil, "\(text)")
        }
    }

    @Test func aMegabyteOfNestingIsRefusedWithoutRecursion() throws {
        let deep = String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000)
        let message = try #require(failure(deep))
        #expect(message.contains("nesting deeper than 512"))
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(failure(ok) == nil)
    }

    @Test func bytesThatAreNotUTF8AreRefused() throws {
        var data = Data("{\"a\":\"".utf8)
        data.append(contentsOf: [0xFF, 0xFE])
        data.append(contentsOf: Array("\"}".utf8))
        #expect(throws: RichPushError.self) { try RichPushJSONValue.validateStrictly(data) }
    }

    @Test func theLinterReportsATrailingCommaAndADuplicateKeyAsInvalidPayload() throws {
        let linter = RichPushPayloadLinter()
        let comma = linter.lint(Data(#"{"aps":{"alert":"a","mutable-content":1},"image-url":"https://x.example/a.jpg",}"#.utf8))
        #expect(comma.map(\.code) == [.invalidPayload])
        #expect(comma.first?.message.contains("trailing comma") == true)
        let duplicate = linter.lint(Data(#"{"aps":{"alert":"a"},"aps":{"alert":"b"}}"#.utf8))
        #expect(duplicate.map(\.code) == [.invalidPayload])
        #expect(duplicate.first?.message.contains("duplicate key \"aps\"") == true)
    }

    @Test func fixTurnsAnAPSStringIntoTheAlertAndKeepsOtherTypes() throws {
        let linter = RichPushPayloadLinter()
        let string = try RichPushJSONValue.parse(Data(#"{"aps":"hello"}"#.utf8))
        #expect(linter.lint(string).first?.fixable == true)
        let fixed = linter.fix(string)
        #expect(fixed["aps"]?["alert"] == .string("hello"))
        #expect(linter.lint(fixed).isEmpty)

        let number = try RichPushJSONValue.parse(Data(#"{"aps":7,"k":"v"}"#.utf8))
        #expect(linter.fix(number) == number)
        #expect(linter.lint(number).first?.fixable == false)
    }

    @Test func parseRefusingDuplicateKeysNamesTheKeyAndOtherwiseParsesAsParse() throws {
        do {
            _ = try RichPushJSONValue.parseRefusingDuplicateKeys(Data("{\"push_id\":\"x\",\n \"\\u0070ush_id\":\"y\"}".utf8))
            Issue.record("a duplicate key was accepted")
        } catch let error as JSONDuplicateKeyError {
            #expect(error.key == "push_id")
            #expect((error.line, error.column) == (2, 2))
            #expect(error.message.contains("duplicate key \"push_id\""))
        }
        // Nested objects too; a byte order mark is skipped as `parse` does; other errors stay `invalid_json`.
        #expect(throws: JSONDuplicateKeyError.self) { try RichPushJSONValue.parseRefusingDuplicateKeys(Data(#"[{"a":1,"a":1}]"#.utf8)) }
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data(#"{"a":1}"#.utf8)
        #expect(try RichPushJSONValue.parseRefusingDuplicateKeys(bom) == RichPushJSONValue.parse(bom))
        do {
            _ = try RichPushJSONValue.parseRefusingDuplicateKeys(Data("{\"a\":1,}".utf8))
            Issue.record("a trailing comma was accepted")
        } catch let error as RichPushError {
            #expect(error.code == .invalidJSON)
        }
    }
}
