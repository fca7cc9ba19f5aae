import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The store capabilities of issue 11, run against both stores (SQLite and PostgreSQL) through
/// the `ReceiptStore` / `DeviceStore` protocols: batches recorded once per batch id, figures with
/// their sources, device registrations, and the token lifecycle.
@Suite("store: recorded sends, devices, token lifecycle (SQLite and PostgreSQL)")
struct StoreSendsAndDevicesTests {
    /// Runs `body` on a fresh store of `backend`, off the cooperative pool.
    func withStore(_ backend: StoreBackend, _ body: @escaping @Sendable (any ReceiptStore & StatisticsStore) throws -> Void) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        try await store.run(body)
        try await store.close()
    }

    @Test("a batch is recorded once per batch id, and the figures name their sources", arguments: StoreBackend.allCases)
    func batches(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let counts = PushSendRecord(
                pushID: "p", sentAtMs: 1_000, title: "Sale", tokens: [], source: "onesignal", batchID: "b1",
                reportedCounts: .init(sent: 100, accepted: 90, skipped: 3))
            #expect(try store.recordSend(counts) == .recorded)
            #expect(try store.recordSend(counts) == .duplicate)
            var other = counts
            other.reportedCounts = .init(sent: 101, accepted: 90)
            #expect(try store.recordSend(other) == .conflict(source: "onesignal", sent: 100, accepted: 90, skipped: 3))
            let ours = PushSendRecord(
                pushID: "p", sentAtMs: 2_000,
                tokens: [
                    .init(deviceToken: "t1", status: 200, outcome: "accepted"),
                    .init(deviceToken: "t2", status: 410, reason: "Unregistered", outcome: "token_inactive", state: .inactive, inactiveSinceMs: 500),
                    .init(deviceToken: "t3", status: nil, reason: "BadDeviceToken", outcome: "skipped"),
                ], source: "apns", batchID: "apns-1")
            #expect(try store.recordSend(ours) == .recorded)
            let push = try #require(try store.push("p"))
            #expect(push.sent == 102)
            #expect(push.accepted == 91)
            #expect(push.skipped == 4)
            #expect(push.sources == ["apns", "onesignal"])
            #expect(try store.pushes(limit: 10).first?.sources == ["apns", "onesignal"])
            // A push with receipts only has no source and no skipped count.
            _ = try store.insert([StoredReceipt(receipt: RichPushReceipt(pushID: "r"), userAgent: nil, receivedAtMs: 3_000)])
            #expect(try store.push("r")?.sources == [])
            #expect(try store.push("r")?.skipped == nil)
            // The dashboard's running totals counted each batch once (not the duplicate, not the conflict).
            let dashboard = try store.dashboard(DashboardQuery())
            #expect(dashboard.sent == 102)
            #expect(dashboard.accepted == 91)
            #expect(dashboard.totalPushes == 2)
            #expect(try store.pushes(PushQuery(limit: 10)).pushes.map(\.pushID) == ["r", "p"])
        }
    }

    @Test("a token recorded inactive, bad or deleted is skipped until it registers again later", arguments: StoreBackend.allCases)
    func lifecycle(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            try store.recordSend(
                PushSendRecord(
                    pushID: "p", sentAtMs: 10_000,
                    tokens: [
                        .init(deviceToken: "gone", status: 410, reason: "Unregistered", outcome: "token_inactive", state: .inactive, inactiveSinceMs: 5_000),
                        .init(deviceToken: "bad", status: 400, reason: "BadDeviceToken", outcome: "token_bad", state: .bad),
                        .init(deviceToken: "fine", status: 200, outcome: "accepted"),
                    ]))
            var skipped = try store.skippedTokens(among: ["gone", "bad", "fine", "never-seen"])
            #expect(skipped.keys.sorted() == ["bad", "gone"])
            #expect(skipped["gone"] == TokenSkip(state: .inactive, reason: "Unregistered", sinceMs: 5_000))
            #expect(skipped["bad"] == TokenSkip(state: .bad, reason: "BadDeviceToken", sinceMs: 10_000))

            // Registered before APNs' timestamp: still skipped. After: sendable again.
            #expect(try store.registerDevice(DeviceRegistration(token: "gone", provider: "apns", platform: "ios", registeredAtMs: 4_000)))
            #expect(try store.skippedTokens(among: ["gone"]).keys.sorted() == ["gone"])
            #expect(try !store.registerDevice(DeviceRegistration(token: "gone", provider: "apns", platform: "ios", registeredAtMs: 6_000)))
            #expect(try store.skippedTokens(among: ["gone"]).isEmpty)
            // A bad token registered after it was marked is tried again, too.
            _ = try store.registerDevice(DeviceRegistration(token: "bad", provider: "apns", platform: "ios", registeredAtMs: 10_001))
            #expect(try store.skippedTokens(among: ["bad"]).isEmpty)

            // The app deletes its registration: skipped from then, until it registers again.
            #expect(try store.unregisterDevice("fine", atMs: 20_000) == false)
            #expect(try store.unregisterDevice("gone", atMs: 20_000) == true)
            skipped = try store.skippedTokens(among: ["fine", "gone"])
            #expect(skipped["gone"]?.state == .deleted)
            #expect(skipped["fine"]?.state == .deleted)
            #expect(try store.device("gone") == nil)
            _ = try store.registerDevice(DeviceRegistration(token: "gone", provider: "apns", platform: "ios", registeredAtMs: 20_001))
            #expect(try store.skippedTokens(among: ["gone"]).isEmpty)
            // A 200 clears a mark whatever the registrations say.
            try store.recordSend(PushSendRecord(pushID: "q", sentAtMs: 30_000, tokens: [.init(deviceToken: "fine", status: 200, outcome: "accepted")]))
            #expect(try store.skippedTokens(among: ["fine"]).isEmpty)
        }
    }

    @Test("devices are found by user, newest first, and a registration replaces the last", arguments: StoreBackend.allCases)
    func devices(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            _ = try store.registerDevice(DeviceRegistration(token: "a", provider: "apns", platform: "ios", userID: "u1", appVersion: "1.0", registeredAtMs: 1))
            _ = try store.registerDevice(DeviceRegistration(token: "b", provider: "fcm", platform: "android", userID: "u1", registeredAtMs: 2))
            _ = try store.registerDevice(DeviceRegistration(token: "c", provider: "apns", platform: "ios", userID: "u2", registeredAtMs: 3))
            #expect(try store.devices(ofUsers: ["u1"], limit: 10).map(\.token) == ["b", "a"])
            #expect(try store.devices(ofUsers: ["u1", "u2", "u3"], limit: 10).count == 3)
            #expect(try store.devices(ofUsers: ["u1", "u2"], limit: 2).count == 2)
            // The same token registered again without a user (the user logged out): unbound.
            _ = try store.registerDevice(DeviceRegistration(token: "a", provider: "apns", platform: "ios", appVersion: "1.1", registeredAtMs: 4))
            #expect(try store.devices(ofUsers: ["u1"], limit: 10).map(\.token) == ["b"])
            #expect(try store.device("a") == DeviceRegistration(token: "a", provider: "apns", platform: "ios", appVersion: "1.1", registeredAtMs: 4))
        }
    }

    @Test("a SQLite file from before version 3 keeps its figures, and their source is APNs")
    func beforeVersion3() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("v1.sqlite").path
        let made = try await ChildProcess("python3", ["-c", StoreMigrationTests.version1, path]).run(timeout: 30)
        #expect(made.status == 0, "\(made.stderr)")
        let store = try SQLiteStore(path: path)
        let old = try #require(try store.push("old"))
        #expect(old.sent == 2)
        #expect(old.accepted == 2)
        #expect(old.skipped == 0)
        #expect(old.sources == ["apns"])
        try store.close()
        let again = try SQLiteStore(path: path)
        #expect(try again.push("old")?.sources == ["apns"])
        try again.close()
    }
}
