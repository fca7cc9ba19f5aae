import Foundation
import RichPushTestSupport
import Testing

/// `richpush serve --help`: its USAGE lines spell out every option (there is no `[options]`), so
/// each option the help explains is in them; a new user found the media workers' options missing.
@Suite("richpush serve --help")
struct ServeUsageLineTests {
    @Test("every option the help explains is in the USAGE lines; the APNs key id shows as optional")
    func everyOptionIsInTheUsage() async throws {
        let help = try await ChildProcess(Fixtures.richpushBinary.path, ["serve", "--help"]).run(timeout: 60)
        #expect(help.status == 0)
        let usage = help.stdout.components(separatedBy: "\n\n").first { $0.hasPrefix("USAGE") } ?? ""
        let explained = Set(
            help.stdout.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  --") else { return nil }
                return line.dropFirst(2).split(separator: " ").first.map(String.init)
            })
        #expect(explained.count > 40, "\(explained.sorted())")
        #expect(explained.contains("--media-workers"))
        let named = Set(usage.split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init).filter { $0.hasPrefix("--") })
        #expect(explained.subtracting(named).sorted() == [], "not in USAGE")
        #expect(usage.contains("[--apns-key-id KEYID]"))
    }
}
