import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushCLI

/// A payload's text never drives the terminal it is printed on: `simulate`'s summary and `lint`'s
/// lines write ESC, NUL, CR and the bidirectional overrides as `\u{…}` (a new user's trial printed
/// a sender name with U+202E and a NUL as they were).
@Suite("payload text on a terminal")
struct TerminalTextTests {
    @Test("the characters a terminal acts on are written as \\u{…}; newlines, tabs, emoji and other scripts stay")
    func escaping() {
        #expect(TerminalText.visible("Ada\u{1B}[2J\u{0}Bob\r") == "Ada\\u{1B}[2J\\u{0}Bob\\u{D}")
        #expect(TerminalText.visible("\u{202E}ecilA\u{202C} \u{2066}x\u{2069}") == "\\u{202E}ecilA\\u{202C} \\u{2066}x\\u{2069}")
        #expect(TerminalText.visible("a\u{7F}b\u{9B}c") == "a\\u{7F}b\\u{9B}c")
        let plain = "title\tお知らせ 👩‍💻\nbody עברית"
        #expect(TerminalText.visible(plain) == plain)
    }

    @Test("simulate's summary and lint's lines, run on a payload that tries it")
    func throughTheCommands() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = dir.appendingPathComponent("hostile.json")
        let text = #"""
            {"aps":{"alert":{"title":"\u001b]0;owned\u0007Sale","body":"\u202eecilA\u202c paid"},"mutable-content":1},
             "push_id":"p\u001b[31m1","sender":{"id":"u-1","name":"Ada\u0000Bob"},"image-url":"http://x.example/\u001b[2J.jpg"}
            """#
        try Data(text.utf8).write(to: payload)
        let simulate = try await ChildProcess(Fixtures.richpushBinary.path, ["simulate", payload.path]).run(timeout: 120)
        #expect(simulate.status == 0, "\(simulate.stderr)")
        let lint = try await ChildProcess(Fixtures.richpushBinary.path, ["lint", payload.path]).run(timeout: 60)
        #expect(lint.status == 1)
        for (name, out) in [("simulate", simulate.stdout), ("lint", lint.stdout)] {
            #expect(!out.unicodeScalars.contains { TerminalText.isHidden($0) }, "\(name): \(out.debugDescription)")
        }
        #expect(simulate.stdout.contains("\\u{1B}]0;owned\\u{7}Sale"), "\(simulate.stdout)")
        #expect(simulate.stdout.contains("\\u{202E}ecilA\\u{202C} paid"), "\(simulate.stdout)")
        #expect(simulate.stdout.contains("Ada\\u{0}Bob"), "\(simulate.stdout)")
        #expect(lint.stdout.contains("http://x.example/\\u{1B}[2J.jpg"), "\(lint.stdout)")
    }
}
