import Foundation
import RichPushDoctor
import RichPushTestSupport
import XCTest

/// A deterministic random-mutation run over the fixture projects: every mutated input either
/// parses or is a `PropertyListError` with a line inside the file; nothing crashes or hangs.
final class ParserFuzzTests: XCTestCase {
    /// The seeded generator (SplitMix64), so a failure replays.
    typealias Generator = SeededGenerator

    static let special: [UInt8] = Array("{}();=,\"'\\/*<>\n \t$U0".utf8) + [0x00, 0xFF, 0xC3]

    static func mutate(_ input: [UInt8], _ rng: inout Generator) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + rng.below(4)) {
            guard !bytes.isEmpty else { break }
            let at = rng.below(bytes.count)
            switch rng.below(6) {
            case 0: bytes[at] = special[rng.below(special.count)]
            case 1: bytes.remove(at: at)
            case 2: bytes.insert(special[rng.below(special.count)], at: at)
            case 3: bytes = Array(bytes[..<at])  // truncation
            case 4: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            default:
                let length = min(rng.below(64), bytes.count - at)
                bytes.insert(contentsOf: bytes[at..<(at + length)], at: rng.below(bytes.count))  // duplicated run
            }
        }
        return bytes
    }

    func testMutatedProjectsNeverCrashOrHang() throws {
        var rng = Generator(state: 20)
        var parsed = 0
        var refused = 0
        let files = Fixture.parseablePBXProjs
        for file in files {
            let original = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
            for _ in 0..<400 {
                let input = Self.mutate(original, &rng)
                let lines = input.filter { $0 == 0x0A }.count + 1
                do {
                    _ = try OpenStepParser(fileName: "fuzz").parse(Data(input))
                    parsed += 1
                } catch let error as PropertyListError {
                    refused += 1
                    XCTAssertTrue((1...lines).contains(error.line), "line \(error.line) outside 1…\(lines): \(error)")
                }
            }
        }
        // Both outcomes happen: the mutations are neither all harmless nor all fatal.
        XCTAssertGreaterThan(parsed, 100)
        XCTAssertGreaterThan(refused, 1000)
    }

    func testRandomBytesNeverCrash() {
        var rng = Generator(state: 7)
        for _ in 0..<2000 {
            let input = (0..<rng.below(300)).map { _ in Self.special[rng.below(Self.special.count)] }
            do {
                _ = try OpenStepParser(fileName: "fuzz").parse(Data(input))
            } catch {
                XCTAssertTrue(error is PropertyListError, "\(error)")
            }
        }
    }

    func testMutatedProjectsThroughTheWholeDoctorNeverCrash() throws {
        var rng = Generator(state: 99)
        let source = Fixture.path("correct")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-doctor-fuzz-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: source, toPath: work.path)
        defer { try? FileManager.default.removeItem(at: work) }
        let pbxproj = work.appendingPathComponent("Fixture.xcodeproj/project.pbxproj")
        let original = Array(try Data(contentsOf: pbxproj))
        var outcomes = Set<String>()
        for _ in 0..<150 {
            try Data(Self.mutate(original, &rng)).write(to: pbxproj)
            let report = Doctor.run(path: work.path)
            outcomes.insert(report.findings.first?.code.rawValue ?? "none")
            XCTAssertTrue(report.lines.last?.hasPrefix("richpush doctor: ") ?? false)
        }
        XCTAssertTrue(outcomes.contains("project_unreadable"), "\(outcomes)")
    }
}
