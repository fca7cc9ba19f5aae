import Foundation
import RichPushCore
import Testing

@testable import RichPushServer

/// The group-commit writer against a store that records the order of commits, syncs and
/// acknowledgements (the durability contract: no completion before a sync after its COMMIT).
@Suite("Receipt writer")
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
            // A slow sync, so that the writer commits further batches meanwhile.
            Thread.sleep(forTimeInterval: 0.002)
            record(.sync)
            if failSync { throw RichPushError(code: .store, message: "disk full") }
        }

        func recordSend(_ send: PushSendRecord) throws {}
        func close() throws {}
    }

    private func post(_ count: Int, to writer: ReceiptWriter, store: RecordingStore) {
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            let id = "r\(i)"
            let receipt = StoredReceipt(receipt: Receipt(pushID: "p", receiptID: id), userAgent: nil, receivedAtMs: 0)
            let queued = writer.submit(receipt) { result in
                store.record(.ack(id, result))
                group.leave()
            }
            #expect(queued)
        }
        group.wait()
    }

    @Test("every receipt is acknowledged only after a sync that followed the commit holding it")
    func acknowledgesAfterSync() throws {
        let store = RecordingStore()
        let writer = ReceiptWriter(store: store)
        post(2_000, to: writer, store: store)
        writer.stop()

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
    func failedSyncFailsTheBatch() throws {
        let store = RecordingStore(failSync: true)
        let writer = ReceiptWriter(store: store)
        post(50, to: writer, store: store)
        writer.stop()
        let results = store.events.compactMap { event -> ReceiptWriter.WriteResult? in
            if case .ack(_, let result) = event { return result }
            return nil
        }
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0 == .failed("disk full") })
    }

    @Test("submit after stop is refused and its completion never runs")
    func refusesAfterStop() {
        let store = RecordingStore()
        let writer = ReceiptWriter(store: store)
        writer.stop()
        let receipt = StoredReceipt(receipt: Receipt(pushID: "p", receiptID: "late"), userAgent: nil, receivedAtMs: 0)
        #expect(!writer.submit(receipt) { _ in Issue.record("completion ran after stop") })
    }
}
