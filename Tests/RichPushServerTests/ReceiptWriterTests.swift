import Foundation
import RichPushCore
import Testing

@testable import RichPushServer

/// The group-commit writer against a store that records the order of commits, syncs and
/// acknowledgements (the durability contract: no completion before a sync after its COMMIT).
@Suite("RichPushReceipt writer")
struct ReceiptWriterTests {
    /// A store that logs every commit (with its receipt ids), every sync and every completion.
    final class RecordingStore: ReceiptStore, @unchecked Sendable {
        enum Event: Equatable {
            case commit([String])
            case sync
            case ack(String, ReceiptWriter.WriteResult)
        }
        private let lock = NSLock()
        private var log: [Event] = []
        private let failSync: Bool

        init(failSync: Bool = false) { self.failSync = failSync }

        var events: [Event] { lock.withLock { log } }
        func record(_ event: Event) { lock.withLock { log.append(event) } }

        func insert(_ receipts: [StoredReceipt]) throws -> [Bool] {
            let results = try insertDeferringSync(receipts)
            try syncCommitted()
            return results
        }

        func insertDeferringSync(_ receipts: [StoredReceipt]) throws -> [Bool] {
            record(.commit(receipts.compactMap(\.receipt.receiptID)))
            return receipts.map { _ in true }
        }

        func syncCommitted() throws {
            // A slow sync, so that the writer commits further batches meanwhile (this runs on the
            // writer's own sync thread, never on the cooperative pool).
            Thread.sleep(forTimeInterval: 0.002)
            record(.sync)
            if failSync { throw RichPushError(code: .store, message: "disk full") }
        }

        // The writer only inserts receipts: the send and device parts are not used here.
        func recordSend(_ send: PushSendRecord) throws -> SendRecording { throw Self.unused }
        func registerDevice(_ registration: DeviceRegistration) throws -> Bool { throw Self.unused }
        func unregisterDevice(_ token: String, atMs: Int) throws -> Bool { throw Self.unused }
        func devices(ofUsers userIDs: [String], limit: Int) throws -> [DeviceRegistration] { throw Self.unused }
        func device(_ token: String) throws -> DeviceRegistration? { throw Self.unused }
        func skippedTokens(among tokens: [String]) throws -> [String: TokenSkip] { throw Self.unused }
        static let unused = RichPushError(code: .store, message: "not used by the receipt writer")
        func close() throws {}
    }

    /// Counts completions and resumes the awaiting test at the last one (no blocked thread).
    final class Countdown: @unchecked Sendable {
        private let lock = NSLock()
        private var remaining: Int
        private var waiter: CheckedContinuation<Void, Never>?

        init(_ count: Int) { remaining = count }

        func done() {
            let resumed: CheckedContinuation<Void, Never>? = lock.withLock {
                remaining -= 1
                guard remaining == 0 else { return nil }
                defer { waiter = nil }
                return waiter
            }
            resumed?.resume()
        }

        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now: Bool = lock.withLock {
                    if remaining <= 0 { return true }
                    waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    private func post(_ count: Int, to writer: ReceiptWriter, store: RecordingStore) async {
        let countdown = Countdown(count)
        for i in 0..<count {
            let id = "r\(i)"
            let receipt = StoredReceipt(receipt: RichPushReceipt(pushID: "p", receiptID: id), userAgent: nil, receivedAtMs: 0)
            let queued = writer.submit(receipt) { result in
                store.record(.ack(id, result))
                countdown.done()
            }
            #expect(queued)
        }
        await countdown.wait()
    }

    /// `stop()` joins the writer's threads (a condition wait): it runs on a thread of its own.
    private func stop(_ writer: ReceiptWriter) async throws {
        try await DedicatedThread.run(named: "receipt-writer-stop") { writer.stop() }
    }

    @Test("every receipt is acknowledged only after a sync that followed the commit holding it")
    func acknowledgesAfterSync() async throws {
        let store = RecordingStore()
        let writer = ReceiptWriter(store: store)
        await post(2_000, to: writer, store: store)
        try await stop(writer)

        let events = store.events
        var committedAt: [String: Int] = [:]
        var lastSync = -1
        var acknowledged = 0
        for (index, event) in events.enumerated() {
            switch event {
            case .commit(let ids): for id in ids { committedAt[id] = index }
            case .sync: lastSync = index
            case .ack(let id, let result):
                let commit = try #require(committedAt[id], "\(id) acknowledged before its commit")
                #expect(lastSync > commit, "\(id) acknowledged without a sync after its commit")
                #expect(result == .stored)
                acknowledged += 1
            }
        }
        #expect(acknowledged == 2_000)
        let commits = events.filter { if case .commit = $0 { true } else { false } }.count
        let syncs = events.filter { $0 == .sync }.count
        #expect(syncs <= commits)
    }

    @Test("a failed sync answers every receipt of the batch with failed, never stored")
    func failedSyncFailsTheBatch() async throws {
        let store = RecordingStore(failSync: true)
        let writer = ReceiptWriter(store: store)
        await post(50, to: writer, store: store)
        try await stop(writer)
        let results = store.events.compactMap { event -> ReceiptWriter.WriteResult? in
            if case .ack(_, let result) = event { return result }
            return nil
        }
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0 == .failed("disk full") })
    }

    /// A store that takes several batches at once (as PostgreSQL does), each slowly, and counts
    /// how many overlapped.
    final class ConcurrentStore: ReceiptStore, @unchecked Sendable {
        let concurrentBatches = 3
        let overlapAfter: Double
        /// How long each insert takes, in seconds.
        let insertTime: Double

        init(overlapAfter: Double, insertTime: Double) {
            self.overlapAfter = overlapAfter
            self.insertTime = insertTime
        }
        private let lock = NSLock()
        private var running = 0
        private var peak = 0
        private var stored: [String] = []
        var storedIDs: [String] { lock.withLock { stored } }
        var mostAtOnce: Int { lock.withLock { peak } }

        func insert(_ receipts: [StoredReceipt]) throws -> [Bool] {
            lock.withLock {
                running += 1
                peak = max(peak, running)
            }
            Thread.sleep(forTimeInterval: insertTime)
            lock.withLock {
                running -= 1
                stored += receipts.compactMap(\.receipt.receiptID)
            }
            return receipts.map { _ in true }
        }

        // The writer only inserts receipts: the send and device parts are not used here.
        func recordSend(_ send: PushSendRecord) throws -> SendRecording { throw RecordingStore.unused }
        func registerDevice(_ registration: DeviceRegistration) throws -> Bool { throw RecordingStore.unused }
        func unregisterDevice(_ token: String, atMs: Int) throws -> Bool { throw RecordingStore.unused }
        func devices(ofUsers userIDs: [String], limit: Int) throws -> [DeviceRegistration] { throw RecordingStore.unused }
        func device(_ token: String) throws -> DeviceRegistration? { throw RecordingStore.unused }
        func skippedTokens(among tokens: [String]) throws -> [String: TokenSkip] { throw RecordingStore.unused }
        func close() throws {}
    }

    /// Submits `count` receipts at once and waits for every answer; returns the answers.
    private func submitAll(_ count: Int, to writer: ReceiptWriter) async -> [ReceiptWriter.WriteResult] {
        let countdown = Countdown(count)
        let answers = RecordingStore()
        for i in 0..<count {
            let receipt = StoredReceipt(receipt: RichPushReceipt(pushID: "p", receiptID: "r\(i)"), userAgent: nil, receivedAtMs: 0)
            #expect(
                writer.submit(receipt) { result in
                    answers.record(.ack("r\(i)", result))
                    countdown.done()
                })
        }
        await countdown.wait()
        return answers.events.compactMap { if case .ack(_, let result) = $0 { result } else { nil } }
    }

    @Test("a store that takes several batches at once gets that many writers when batches are slow; each receipt is stored and answered once")
    func concurrentWriters() async throws {
        let store = ConcurrentStore(overlapAfter: 0.001, insertTime: 0.05)
        let writer = ReceiptWriter(store: store, maximumBatch: 100)
        #expect(writer.writers == 3)
        let answers = await submitAll(1_500, to: writer)
        try await stop(writer)
        #expect(store.mostAtOnce == 3)
        #expect(store.storedIDs.count == 1_500)
        #expect(Set(store.storedIDs).count == 1_500)
        #expect(answers.count == 1_500)
        #expect(answers.allSatisfy { $0 == .stored })
    }

    @Test("quick batches keep one in flight (a second writer waits for overlapAfter)")
    func quickBatchesDoNotOverlap() async throws {
        let store = ConcurrentStore(overlapAfter: 5, insertTime: 0.001)
        let writer = ReceiptWriter(store: store, maximumBatch: 100)
        let answers = await submitAll(500, to: writer)
        try await stop(writer)
        #expect(store.mostAtOnce == 1)
        #expect(store.storedIDs.count == 500)
        #expect(answers.count == 500)
    }

    @Test("submit after stop is refused and its completion never runs")
    func refusesAfterStop() async throws {
        let store = RecordingStore()
        let writer = ReceiptWriter(store: store)
        try await stop(writer)
        let receipt = StoredReceipt(receipt: RichPushReceipt(pushID: "p", receiptID: "late"), userAgent: nil, receivedAtMs: 0)
        #expect(!writer.submit(receipt) { _ in Issue.record("completion ran after stop") })
    }
}
