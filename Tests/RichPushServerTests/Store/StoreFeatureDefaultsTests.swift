import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// A store that keeps receipts, sends and devices (a SQLite file underneath) and none of the
/// optional features: campaigns, idempotency keys, the webhook outbox, media files all answer
/// with the protocols' defaults.
private final class PlainStore: ReceiptStore, StatisticsStore, @unchecked Sendable {
    let inner: SQLiteStore
    init(path: String) throws { inner = try SQLiteStore(path: path) }
    func insert(_ receipts: [StoredReceipt]) throws -> [Bool] { try inner.insert(receipts) }
    func recordSend(_ send: PushSendRecord) throws -> SendRecording { try inner.recordSend(send) }
    func registerDevice(_ registration: DeviceRegistration) throws -> Bool { try inner.registerDevice(registration) }
    func unregisterDevice(_ token: String, atMs: Int) throws -> Bool { try inner.unregisterDevice(token, atMs: atMs) }
    func devices(ofUsers userIDs: [String], limit: Int) throws -> [DeviceRegistration] { try inner.devices(ofUsers: userIDs, limit: limit) }
    func device(_ token: String) throws -> DeviceRegistration? { try inner.device(token) }
    func skippedTokens(among tokens: [String]) throws -> [String: TokenSkip] { try inner.skippedTokens(among: tokens) }
    func close() throws { try inner.close() }
    func pushes(_ query: PushQuery) throws -> PushPage { try inner.pushes(query) }
    func push(_ pushID: String) throws -> PushStatistics? { try inner.push(pushID) }
    func pushDetail(_ pushID: String) throws -> PushDetail? { try inner.pushDetail(pushID) }
    func dashboard(_ query: DashboardQuery) throws -> DashboardSnapshot { try inner.dashboard(query) }
    func deviceTokenState(_ deviceToken: String) throws -> (state: PushSendRecord.TokenState, reason: String?, sinceMs: Int?)? {
        try inner.deviceTokenState(deviceToken)
    }
}

@Suite("a store without the optional features")
struct StoreFeatureDefaultsTests {
    fileprivate static func plainStore() throws -> (PlainStore, URL) {
        let directory = try Fixtures.temporaryDirectory("richpush-plain-store")
        return (try PlainStore(path: directory.appendingPathComponent("plain.sqlite").path), directory)
    }

    static func code(_ work: () throws -> Any) -> String? {
        do {
            _ = try work()
            return nil
        } catch {
            return (error as? RichPushError)?.code.rawValue
        }
    }

    @Test("each feature it lacks is store_unsupported; SQLite and PostgreSQL keep them all")
    func defaults() throws {
        let (store, directory) = try Self.plainStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(Self.code { try store.campaignStore() } == "store_unsupported")
        #expect(Self.code { try store.idempotencyStore() } == "store_unsupported")
        #expect(Self.code { try store.webhookOutbox() } == "store_unsupported")
        #expect(Self.code { try store.mediaUsage() } == "store_unsupported")
        let sqlite: any ReceiptStore = store.inner
        #expect(Self.code { try sqlite.campaignStore() } == nil)
        #expect(Self.code { try sqlite.idempotencyStore() } == nil)
        #expect(Self.code { try sqlite.webhookOutbox() } == nil)
        try store.close()
    }

    @Test("its campaign routes answer 501 campaigns_unsupported; receipts still work")
    func campaignRoutes() async throws {
        let (store, directory) = try Self.plainStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try InProcessServer(store: store)
        let c = server.client()
        for path in ["/v1/campaigns", "/v1/campaigns/0123abcd", "/campaigns"] {
            let r = try await c.request("GET", path, headers: server.admin)
            #expect(r.status == 501, "\(path): \(r.text)")
            #expect(r.text.contains("\"code\":\"campaigns_unsupported\""), "\(path): \(r.text)")
        }
        let receipt = try await c.post("/v1/receipts", form: "push_id=plain-1&event=delivered")
        #expect(receipt.status == 202)
        try await server.shutdown()
    }

    @Test("a request with an Idempotency-Key is 501 idempotency_unsupported and nothing is sent; without a key it is sent")
    func idempotencyKeys() async throws {
        let (store, directory) = try Self.plainStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ServerContext(configuration: ServerConfiguration(adminToken: InProcessServer.token), store: store, metrics: ServerMetrics())
        let idempotency = IdempotentSend(context: context, scope: "POST /v1/pushes")
        let sent = Locked(0)
        let send: @Sendable () async -> ServerResponse = {
            sent.withLock { $0 += 1 }
            return ServerResponse(status: 200, contentType: "application/json", body: Data("{}".utf8))
        }
        let keyed = ServerRequest(method: "POST", path: "/v1/pushes", headers: [(name: "Idempotency-Key", value: "k-1")], body: Data("{}".utf8))
        do {
            _ = try await idempotency.respond(key: try IdempotencyKey(keyed), body: keyed.body, send: send)
            Issue.record("a keyed request was answered on a store without keys")
        } catch let error as HTTPResponseError {
            #expect(error.status == 501)
            #expect(error.code == "idempotency_unsupported")
            #expect(error.field == "Idempotency-Key")
        }
        #expect(sent.withLock { $0 } == 0)
        let plain = try await idempotency.respond(key: nil, body: Data("{}".utf8), send: send)
        #expect(plain.status == 200)
        #expect(sent.withLock { $0 } == 1)
        try store.close()
    }

    @Test("webhooks configured on it: the server does not start, naming the outbox")
    func webhooks() throws {
        let (store, directory) = try Self.plainStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration(adminToken: InProcessServer.token)
        configuration.webhooks = WebhookSettings(endpoints: [WebhookEndpoint(url: "http://127.0.0.1:9/hooks", secret: Data("0123456789abcdef".utf8))])
        do {
            _ = try StatisticsServer(configuration: configuration, store: store, listening: false)
            Issue.record("the server started with webhooks on a store without an outbox")
        } catch let error as RichPushError {
            #expect(error.code == .storeUnsupported)
            #expect(error.message.contains("webhook outbox"), "\(error.message)")
        }
        try store.close()
    }
}
