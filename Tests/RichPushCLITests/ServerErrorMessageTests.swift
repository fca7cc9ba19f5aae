import Foundation
import RichPushCore
import Testing

@testable import RichPushCLI

/// The server's error as the commands print it (issue 29, item 8: `richpush campaign` cut the
/// server's message at 300 characters, mid-word).
@Suite struct ServerErrorMessageTests {
    func body(code: String, message: String) -> Data {
        RichPushJSONValue.object(["error": .object(["code": .string(code), "message": .string(message)])]).jsonData()
    }

    @Test func aLongMessageIsPrintedWhole() throws {
        let message = (1...60).map { "word\($0)" }.joined(separator: " ") + " then what to do."
        #expect(message.count > 400)
        let error = try #require(StatisticsServerConnection.errorObject(body(code: "invalid_request", message: message)))
        #expect(error.code == "invalid_request")
        #expect(error.message == message)
    }

    @Test func onlyAMessageOverTheBoundIsCutAndThenAtAWord() throws {
        let words = Array(repeating: "abcdefghi", count: 400).joined(separator: " ")
        let error = try #require(StatisticsServerConnection.errorObject(body(code: "x", message: words)))
        #expect(error.message.hasSuffix("abcdefghi …"), "\(error.message.suffix(20))")
        #expect(error.message.count <= StatisticsServerConnection.maximumMessageCharacters + 2)
    }

    @Test func controlCharactersFromTheServerAreShownAsSpaces() throws {
        let error = try #require(StatisticsServerConnection.errorObject(body(code: "bad\u{1B}[2J", message: "a\u{1B}[31mred\u{7}\nline")))
        #expect(error.code == "bad[2J")
        #expect(error.message == "a [31mred  line")
        #expect(StatisticsServerConnection.errorObject(Data("not json".utf8)) == nil)
    }
}
