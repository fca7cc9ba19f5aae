import Foundation
import RichPushTestSupport
import Testing

/// BENCHMARKS.md: every command it gives runs a script this repository contains (finding 13: a
/// figure without its command in the repo is removed).
@Suite struct BenchmarkCommandsTests {
    @Test func everyBenchmarkScriptItNamesExists() throws {
        let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("BENCHMARKS.md"), encoding: .utf8)
        let regex = try NSRegularExpression(pattern: #"(?:benchmarks|scripts|Tests/Support)/[A-Za-z0-9_.-]+\.(?:sh|py|lua)"#)
        let paths = Set(regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { Range($0.range, in: text).map { String(text[$0]) } })
        #expect(paths.count >= 8, "\(paths.sorted())")
        for path in paths.sorted() {
            #expect(
                FileManager.default.fileExists(atPath: Fixtures.packageRoot.appendingPathComponent(path).path),
                "BENCHMARKS.md names \(path), which is not in the repo")
        }
        // Each "Command:" or ```sh block of a figures section names one of them.
        #expect(text.components(separatedBy: "bash benchmarks/").count - 1 >= 8)
        // The figures the new-user trial found without a command are gone.
        for stale in ["27,905", "1.11 s wall", "40,006", "500–1,000/s", "0.33, 0.51, 1.11", "33–35 µs", "41,263 transactions"] {
            #expect(!text.contains(stale), "\(stale) has no command in the repo")
        }
    }
}
