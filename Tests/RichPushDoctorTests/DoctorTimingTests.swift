import Foundation
import RichPushDoctor
import RichPushTestSupport
import Testing

/// Wall-clock bounds of the doctor on hostile projects (issue 28; in scripts/test.sh's TIMING
/// list): a diamond of includes 30 levels deep took 78 s at 16 levels (each level doubled the
/// reads); now under a second.
@Suite("Doctor: hostile projects in bounded time")
struct DoctorTimingTests {
    @Test("the include diamond at 30 levels: the whole doctor run under a second")
    func diamondUnderASecond() throws {
        let project = try HostileProjectTests.project("diamond-time")
        defer { try? FileManager.default.removeItem(at: project.deletingLastPathComponent()) }
        let top = try HostileProjectTests.diamond(in: project.appendingPathComponent("Config"), levels: 30)
        try HostileProjectTests.append("#include \"\(top)\"", to: project.appendingPathComponent("Config/Shared.xcconfig"))
        let started = ContinuousClock.now
        let report = Doctor.run(path: project.path)
        let took = ContinuousClock.now - started
        #expect(report.findings.contains { $0.message.contains("includes reach more than 256 files") })
        #expect(took < .seconds(1), "the doctor took \(took)")
    }
}
