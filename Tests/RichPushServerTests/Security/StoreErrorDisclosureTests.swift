import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// A store that fails every write with SQLite's message, which names the database file.
private final class FailingStore: ReceiptStore, StatisticsStore, @unchecked Sendable {
    static let path = "/var/lib/richpush/secret-location.sqlite"
    let error = RichPushError(code: .store, message: "SQLite step failed: disk I/O error in 'INSERT INTO receipts' (\(FailingStore.path))")
    func insert(_ receipts: [StoredReceipt]) throws -> [Bool] { throw error }
    func recordSend(_ send: PushSendRecord) throws -> SendRecording { throw error }
    func registerDevice(_ registration: DeviceRegistration) throws -> Bool { throw error }
    func unregisterDevice(_ token: String, atMs: Int) throws -> Bool { throw error }
    func devices(ofUsers userIDs: [String], limit: Int) throws -> [DeviceRegistration] { throw error }
    func device(_ token: String) throws -> DeviceRegistration? { throw error }
    func skippedTokens(among tokens: [String]) throws -> [String: TokenSkip] { throw error }
    func close() throws {}
    func pushes(_ query: PushQuery) throws -> PushPage { throw error }
    func push(_ pushID: String) throws -> PushStatistics? { throw error }
    func pushDetail(_ pushID: String) throws -> PushDetail? { throw error }
    func dashboard(_ query: DashboardQuery) throws -> DashboardSnapshot { throw error }
    func deviceTokenState(_ deviceToken: String) throws -> (state: PushSendRecord.TokenState, reason: String?, sinceMs: Int?)? { throw error }
}

@Suite("store errors")
struct StoreErrorDisclosureTests {
    @Test("a receipt the store cannot write gets 503 with Retry-After and no database path; the admin still sees the detail")
    func noPathForAnonymous() async throws {
        let server = try InProcessServer(store: FailingStore()) { $0.adminToken = "admin-token-0123456789abcdef" }
        let c = server.client()
        let r = try await c.post("/v1/receipts", form: "push_id=1")
        #expect(r.status == 503)
        #expect(r.headers["retry-after"] == "1")
        #expect(!r.text.contains(FailingStore.path))
        #expect(!r.text.contains("secret-location"))
        #expect(!r.text.contains("SQLite"))
        #expect(r.text.contains("store_error"))
        let admin = try await c.request("GET", "/v1/pushes", headers: ["Authorization": "Bearer admin-token-0123456789abcdef"])
        #expect(admin.status == 503)
        #expect(admin.text.contains("disk I/O error"))
        try await server.shutdown()
    }
}
