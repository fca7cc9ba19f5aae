import Foundation
import RichPushTestSupport

@testable import RichPushServer

/// A store for tests whose every call runs on a thread of its own (one at a time, in order),
/// awaited: store calls block (SQLite's fsync, libpq round trips), and tests must not hold the
/// cooperative pool's threads that other tests' deadline timers need.
final class TestStore: Sendable {
    /// The store itself (for `#expect`s about its type or properties that do not block).
    let store: any ReceiptStore & StatisticsStore
    private let thread: DedicatedThread

    init(_ store: any ReceiptStore & StatisticsStore) {
        self.store = store
        thread = DedicatedThread(name: "test-store")
    }

    /// Opens a store on the store's own thread.
    static func open(_ make: @escaping @Sendable () throws -> any ReceiptStore & StatisticsStore) async throws -> TestStore {
        TestStore(try await DedicatedThread.run(named: "test-store-open", make))
    }

    /// Runs any blocking call on the store's thread.
    func run<T: Sendable>(_ work: @escaping @Sendable (any ReceiptStore & StatisticsStore) throws -> T) async throws -> T {
        let store = self.store
        return try await thread.run { try work(store) }
    }

    func insert(_ receipts: [StoredReceipt]) async throws -> [Bool] { try await run { try $0.insert(receipts) } }
    @discardableResult
    func recordSend(_ send: PushSendRecord) async throws -> SendRecording { try await run { try $0.recordSend(send) } }
    func push(_ id: String) async throws -> PushStatistics? { try await run { try $0.push(id) } }
    func pushes(limit: Int) async throws -> [PushStatistics] { try await run { try $0.pushes(limit: limit) } }
    func dashboard(maximumBuckets: Int) async throws -> DashboardSnapshot { try await run { try $0.dashboard(maximumBuckets: maximumBuckets) } }
    func close() async throws { try await run { try $0.close() } }

    /// What APNs said about a device token.
    func deviceTokenState(_ token: String) async throws -> TokenStateRow? {
        try await run { store in
            try store.deviceTokenState(token).map { TokenStateRow(state: $0.state, reason: $0.reason, sinceMs: $0.sinceMs) }
        }
    }
}

/// A `device_tokens` row, comparable.
struct TokenStateRow: Sendable, Equatable {
    var state: PushSendRecord.TokenState
    var reason: String?
    var sinceMs: Int?
}
