import Foundation
import RichPushCore
import RichPushTestSupport
import XCTest

/// `richpush doctor` as a user runs it: exit statuses 0 / 1 / 64, lines, --json, --help.
final class DoctorCommandTests: XCTestCase {
    func doctor(_ arguments: [String]) async throws -> ChildProcess.Finished {
        try await ChildProcess(Fixtures.richpushBinary.path, ["doctor"] + arguments).run(timeout: 60)
    }

    func testExitStatusesAndOutput() async throws {
        let ok = try await doctor([Fixture.path("correct")])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let lines = ok.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, ok.stdout)
        XCTAssertTrue(lines[0].hasPrefix("info content_extension_present NotificationContent: "))
        XCTAssertTrue(lines[1].hasPrefix("richpush doctor: 0 errors, 0 warnings, 1 note in "), ok.stdout)

        let bad = try await doctor([Fixture.path("nse_not_embedded")])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stdout.hasPrefix("error nse_not_embedded NotificationService: "), bad.stdout)

        let usage = try await doctor([])
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(usage.stderr.contains("give exactly one path"), usage.stderr)
        let probeAlone = try await doctor(["--probe", Fixture.path("correct")])
        XCTAssertEqual(probeAlone.status, 64, "--probe fetches the payload's media: it needs --payload")
        XCTAssertTrue(probeAlone.stderr.contains("give it with '--payload FILE'"), probeAlone.stderr)

        let help = try await doctor(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("richpush doctor PATH [--json] [--payload FILE [--probe"), help.stdout)
    }

    func testJSONAndPayload() async throws {
        let payload = Fixture.directory.appendingPathComponent("payloads/http-media.json").path
        let run = try await doctor([Fixture.path("correct"), "--json", "--payload", payload])
        XCTAssertEqual(run.status, 1)
        let json = try JSONValue.parse(Data(run.stdout.utf8))
        let codes = json["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        XCTAssertEqual(Array(codes.prefix(2)).sorted(), ["ats_blocks_media", "insecure_media_url"])
        XCTAssertEqual(json["targets"]?.arrayValue?.count, 3)
        let missing = try await doctor([Fixture.path("correct"), "--payload", "/nonexistent.json"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("/nonexistent.json"), missing.stderr)
    }
}
