import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

@Suite("Badge operations in a shared container", .serialized)
struct BadgeTests {
    @Test func everySpellingParsesToItsOperation() {
        #expect(BadgeOperation(json: .string("inc"))?.kind == .add(1))
        #expect(BadgeOperation(json: .string("dec"))?.kind == .add(-1))
        #expect(BadgeOperation(json: .string("+2"))?.kind == .add(2))
        #expect(BadgeOperation(json: .string("-1"))?.kind == .add(-1))
        #expect(BadgeOperation(json: .string("set:5"))?.kind == .set(5))
        #expect(BadgeOperation(json: .int(3))?.kind == .set(3))
        for bad: RichPushJSONValue in [.string("twice"), .string("+"), .string("set:-1"), .string("+1000000"), .bool(true), .int(-4), .string("+1.5")] {
            #expect(BadgeOperation(json: bad) == nil, "\(bad)")
        }
    }

    @Test func theCounterNeverGoesBelowZero() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let counter = RichPushBadgeCounter(directory: dir)
        #expect(try counter.current() == 0)
        #expect(try counter.apply(BadgeOperation(.add(-3))) == 0)
        #expect(try counter.apply(BadgeOperation(.add(2))) == 2)
        #expect(try counter.apply(BadgeOperation(.set(7))) == 7)
        try counter.resetBadge()
        #expect(try counter.current() == 0)
    }

    @Test func fiveConcurrentIncrementsFromFiveProcessesAddFive() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try RichPushBadgeCounter(directory: dir).apply(BadgeOperation(.set(3)))
        let results = try await DepthSupport.runConcurrently(Array(repeating: ["badge", dir.path, "inc"], count: 5))
        #expect(results.allSatisfy { $0.0 == 0 })
        #expect(try RichPushBadgeCounter(directory: dir).current() == 8)
        let printed = Set(results.compactMap { Int($0.1.trimmingCharacters(in: .whitespacesAndNewlines)) })
        #expect(printed == Set(4...8))
    }

    @Test func fiveProcessesIncrementingAHundredTimesEachLoseNoIncrement() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let results = try await DepthSupport.runConcurrently(Array(repeating: ["badge", dir.path, "+1", "100"], count: 5))
        #expect(results.allSatisfy { $0.0 == 0 })
        #expect(try RichPushBadgeCounter(directory: dir).current() == 500)
    }
}
