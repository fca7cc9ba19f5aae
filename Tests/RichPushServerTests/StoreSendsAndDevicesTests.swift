import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The store capabilities of issue 11, through the `ReceiptStore` / `DeviceStore` protocols (so
/// every backend can run them): batches recorded once per batch id, figures with their sources,
/// device registrations, and the token lifecycle.
@Suite("store: recorded sends, devices, token lifecycle")
struct StoreSendsAndDevicesTests {
    /// Runs `body` against a fresh store of every backend built here (SQLite).
    func withEachStore(_ body: (any ReceiptStore & StatisticsStore) throws -> Void) throws {
        let dir = try Fixtures.temporaryDirectory("store-issue11")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("s.sqlite").path, synchronous: .normal)
        defer { try? store.close() }
        try body(store)
    }

    @Test func aBatchIsRecordedOncePerBatchIDAndTheFiguresNameTheirSources() throws {
        try withEachStore { store in
            let counts = PushSendRecord(pushID: "p", sentAtMs: 1_000, title: "Sale", tokens: [], source: "onesignal", batchID: "b1",
                                        reportedCounts: .init(sent: 100, accepted: 90, skipped: 3))
            #expect(try store.recordSend(counts) == .recorded)
            #expect(try store.recordSend(counts) == .duplicate)
            var other = counts
            other.reportedCounts = .init(sent: 101, accepted: 90)
            #expect(try store.recordSend(other) == .conflict(source: "onesignal", sent: 100, accepted: 90, skipped: 3))
            let ours = PushSendRecord(pushID: "p", sentAtMs: 2_000, tokens: [
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
            _ = try store.insert([StoredReceipt(receipt: Receipt(pushID: "r"), userAgent: nil, receivedAtMs: 3_000)])
            #expect(try store.push("r")?.sources == [])
            #expect(try store.push("r")?.skipped == nil)
        }
    }

    @Test func aTokenRecordedInactiveOrBadIsSkippedUntilItRegistersAgainLater() throws {
        try withEachStore { store in
            try store.recordSend(PushSendRecord(pushID: "p", sentAtMs: 10_000, tokens: [
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

    @Test func devicesAreFoundByUserNewestFirstAndARegistrationReplacesTheLast() throws {
        try withEachStore { store in
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

    @Test func aDatabaseFromBeforeVersion3KeepsItsFiguresAndTheirSourceIsAPNs() async throws {
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
