import Foundation
import RichPushCore
import RichPushDoctor
import RichPushTestSupport
import XCTest

/// The parser's tree equals PyPI `openstep-parser`'s (installed by scripts/install-deps.sh) on
/// every fixture project, the Examples project and the parser fixture.
final class OpenStepCompatibilityTests: XCTestCase {
    func testEqualsOpenStepParserOnEveryFixture() async throws {
        let files = Fixture.parseablePBXProjs
        XCTAssertGreaterThanOrEqual(files.count, 13)
        let script = """
            import json, sys
            try:
                from openstep_parser import OpenStepDecoder
            except ImportError:
                sys.exit("openstep_parser is missing: run bash scripts/install-deps.sh")
            out = {}
            for path in sys.argv[1:]:
                with open(path, encoding="utf-8") as f:
                    out[path] = OpenStepDecoder.ParseFromFile(f)
            print(json.dumps(out))
            """
        let run = try await ChildProcess("python3", ["-c", script] + files).run(timeout: 120)
        XCTAssertEqual(run.status, 0, run.stderr)
        guard case .object(let theirs) = try RichPushJSONValue.parse(Data(run.stdout.utf8)) else { return XCTFail("not an object: \(run.stdout.prefix(200))") }
        for file in files {
            let ours = try OpenStepParser(fileName: file).parse(try Data(contentsOf: URL(fileURLWithPath: file)))
            XCTAssertEqual(Self.json(ours), theirs[file], "\(file) parses differently from openstep-parser")
        }
    }

    /// Real projects' files, when `RICHPUSH_REAL_PBXPROJS` lists them (colon-separated; they are
    /// not committed: see docs/doctor.md for the ones checked).
    func testEqualsOpenStepParserOnRealProjectsWhenGiven() async throws {
        let files = (ProcessInfo.processInfo.environment["RICHPUSH_REAL_PBXPROJS"] ?? "").split(separator: ":").map(String.init)
        try XCTSkipIf(files.isEmpty, "set RICHPUSH_REAL_PBXPROJS to project.pbxproj files of real projects")
        let script = """
            import json, sys
            from openstep_parser import OpenStepDecoder
            print(json.dumps({p: OpenStepDecoder.ParseFromFile(open(p, encoding="utf-8")) for p in sys.argv[1:]}))
            """
        let run = try await ChildProcess("python3", ["-c", script] + files).run(timeout: 300)
        XCTAssertEqual(run.status, 0, run.stderr)
        guard case .object(let theirs) = try RichPushJSONValue.parse(Data(run.stdout.utf8)) else { return XCTFail("not an object") }
        for file in files {
            let ours = try OpenStepParser(fileName: file).parse(try Data(contentsOf: URL(fileURLWithPath: file)))
            XCTAssertEqual(Self.json(ours), theirs[file], "\(file) parses differently from openstep-parser")
        }
    }

    /// Strings, arrays and dictionaries as JSON (the only types a pbxproj holds).
    static func json(_ value: PlistValue) -> RichPushJSONValue {
        switch value {
        case .string(let s): return .string(s)
        case .array(let a): return .array(a.map(json))
        case .dictionary(let d): return .object(d.mapValues(json))
        default: return .string("unexpected \(value)")
        }
    }
}
