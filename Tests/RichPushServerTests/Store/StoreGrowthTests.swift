import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// What the per-address budget and `/metrics` read from each store: which push ids a batch
/// created, whether a push exists, and the growth figures (rows and bytes on disk).
@Suite("store growth and new push ids")
struct StoreGrowthTests {
    static func receipt(_ push: String, _ id: String) -> StoredReceipt {
        StoredReceipt(receipt: RichPushReceipt(pushID: push, receiptID: id), userAgent: nil, receivedAtMs: 1_700_000_000_000)
    }

    @Test("a batch reports the push ids it created, once; pushExists; growth counts rows and bytes", arguments: StoreBackend.allCases)
    func reports(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        let first = try await store.run { try $0.insertReportingPushes([Self.receipt("a", "1"), Self.receipt("b", "1"), Self.receipt("a", "2")]) }
        #expect(first.isNew == [true, true, true])
        #expect(first.newPushIDs == ["a", "b"])
        let second = try await store.run { try $0.insertReportingPushes([Self.receipt("a", "3"), Self.receipt("c", "1"), Self.receipt("a", "3")]) }
        #expect(second.isNew == [true, true, false])
        #expect(second.newPushIDs == ["c"])
        #expect(try await store.run { try $0.pushExists("a") })
        #expect(try await store.run { try !$0.pushExists("zzz") })
        _ = try await store.run {
            try $0.registerDevice(DeviceRegistration(token: String(repeating: "ab", count: 32), provider: "apns", platform: "ios", registeredAtMs: 1))
        }
        let growth = try #require(try await store.run { try $0.growth() })
        #expect(growth.receipts == 5)
        #expect(growth.pushes == 3)
        #expect(growth.bytes > 10_000)
        if backend == .sqlite { #expect(growth.devices == 1) }
        try await store.close()
    }
}
