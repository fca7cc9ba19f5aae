import Foundation
import RichPushTestSupport
import Testing

/// The README's five-minute paths ("The three sides, five minutes each"), run as written from the
/// package root with this build's richpush: the device side's `simulate` and `doctor` lines, the
/// provider side's `lint` line, and the statistics side's server and receipt. (The provider
/// side's `send` needs an Apple key: the sending guide's mock-APNs block is run by
/// `SendingGuideMockSendTests`.)
@Suite struct ReadmeFiveMinuteTests {
    /// The `richpush …` lines of the shell blocks under the README's heading `### <side>…`.
    static func commands(side: String) throws -> [String] {
        try shellLines(side: side).filter { $0.hasPrefix("richpush ") }
    }

    /// Every line of the shell blocks under the README's heading `### <side>…`.
    static func shellLines(side: String) throws -> [String] {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let heading = try #require(lines.firstIndex { $0.hasPrefix("### \(side)") }, "no README heading ### \(side)")
        let end = lines[(heading + 1)...].firstIndex { $0.hasPrefix("#") } ?? lines.count
        var commands: [String] = []
        var inShell = false
        for line in lines[heading..<end] {
            if line == "```sh" {
                inShell = true
            } else if line == "```" {
                inShell = false
            } else if inShell {
                commands.append(line)
            }
        }
        return commands
    }

    /// Runs one README line with bash from the package root, richpush first on PATH.
    static func run(_ line: String) async throws -> ChildProcess.Finished {
        let bin = Fixtures.richpushBinary.deletingLastPathComponent().path
        let script = "set -u\ncd '\(Fixtures.packageRoot.path)'\nexport PATH='\(bin)':\"$PATH\"\n\(line)"
        return try await ChildProcess("/bin/bash", ["-c", script]).run(timeout: 120)
    }

    @Test func theDeviceSidesCommandsSimulateArticle000AndFindNoErrorInTheExamples() async throws {
        let commands = try Self.commands(side: "Device side")
        #expect(commands.count == 2, "\(commands)")
        let simulate = try #require(commands.first { $0.hasPrefix("richpush simulate ") })
        let shown = try await Self.run(simulate)
        #expect(shown.status == 0, "\(shown.stderr)")
        // Article 000's text push: its title shown as sent, no media to attach, no push id to report.
        #expect(shown.stdout.contains("新しい記事がおすすめです"), "\(shown.stdout)")
        #expect(shown.stdout.contains("text_only"), "\(shown.stdout)")
        let doctor = try #require(commands.first { $0.hasPrefix("richpush doctor ") })
        let checked = try await Self.run(doctor)
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout.contains("richpush doctor: 0 errors"), "\(checked.stdout)")
    }

    @Test func theProviderSidesLintLineFindsNothingInArticle000sImagePush() async throws {
        let commands = try Self.commands(side: "Provider side")
        let lint = try #require(commands.first { $0.hasPrefix("richpush lint ") }, "\(commands)")
        let run = try await Self.run(lint)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("ok, no findings"), "\(run.stderr)")
    }

    @Test func theStatisticsSidesServerAcceptsTheReceiptOfItsCurlLine() async throws {
        let lines = try Self.shellLines(side: "Statistics side")
        let serveLine = try #require(lines.first { $0.hasPrefix("bash scripts/serve.sh ") }, "\(lines)")
        let curlLine = try #require(lines.first { $0.hasPrefix("curl ") }, "\(lines)")
        // scripts/serve.sh installs, builds the release binary and then runs `richpush serve`
        // with its arguments: here this build's richpush with the README's arguments, on a free
        // port instead of 8080 and a scratch database instead of ./richpush.sqlite.
        var arguments = serveLine.prefix { $0 != "#" }.split(separator: " ").dropFirst(2).map(String.init)
        let portIndex = try #require(arguments.firstIndex(of: "--port").flatMap { $0 + 1 < arguments.count ? $0 : nil }, "\(serveLine)")
        #expect(arguments[portIndex + 1] == "8080")
        arguments[portIndex + 1] = "0"
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = ChildProcess(
            Fixtures.richpushBinary.path, ["serve"] + arguments + ["--db", dir.appendingPathComponent("richpush.sqlite").path])
        let port = try await server.start()
        let curl = String(curlLine.prefix { $0 != "#" }).replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
        #expect(curl.contains("127.0.0.1:\(port)/v1/receipts"), "\(curl)")
        let posted = try await ChildProcess("/bin/bash", ["-c", curl]).run(timeout: 60)
        await server.terminate()
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(posted.stdout.hasPrefix("HTTP/1.1 202"), "\(posted.stdout)")
        // The server printed the admin token the README says to sign in with.
        #expect(server.standardOutput.contains("admin token (generated, shown once"), "\(server.standardOutput)")
    }
}
