import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Load, kill -9 and SIGTERM against the built `richpush serve` (serialized: they are heavy).
@Suite("richpush serve durability", .serialized)
struct ServerDurabilityTests {
    /// A set shared by the client tasks.
    final class Acknowledged: @unchecked Sendable {
        private let lock = NSLock()
        private var ids: [String: Set<String>] = [:]
        private var failures = 0
        func add(_ push: String, _ id: String) { lock.withLock { _ = ids[push, default: []].insert(id) } }
        func fail() { lock.withLock { failures += 1 } }
        var snapshot: [String: Set<String>] { lock.withLock { ids } }
        var total: Int { lock.withLock { ids.values.map(\.count).reduce(0, +) } }
        var failureCount: Int { lock.withLock { failures } }
    }

    /// Receipt ids stored in the database file, per push.
    private func storedIDs(_ database: URL) throws -> [String: Set<String>] {
        let db = try SQLiteConnection(path: database.path, readOnly: true)
        let rows = try db.prepared("SELECT push_id, receipt_id FROM receipts WHERE event = 'delivered' AND receipt_id IS NOT NULL")
            .rows { ($0.text(0) ?? "", $0.text(1) ?? "") }
        var out: [String: Set<String>] = [:]
        for (push, id) in rows { out[push, default: []].insert(id) }
        return out
    }

    @Test("8 concurrent clients posting 5,000 receipts with 10 % duplicates give exactly the right counts")
    func concurrentDedup() async throws {
        let server = try await ServerProcess()
        // 4,500 distinct receipts over 5 pushes, plus 500 repeats of earlier ones: 5,000 posts.
        var posts: [(push: String, id: String)] = (0..<4_500).map { ("load-\($0 % 5)", "r\($0)") }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 { posts.append(posts[Int.random(in: 0..<4_500, using: &generator)]) }
        posts.shuffle(using: &generator)
        let statuses = Acknowledged()
        let port = server.port
        let chunks = (0..<8).map { k in stride(from: k, to: posts.count, by: 8).map { posts[$0] } }
        // Each client's socket work runs on a thread of its own; the tasks only await it.
        await withTaskGroup(of: Void.self) { group in
            for k in 0..<8 {
                group.addTask {
                    let c = HTTPTestClient(port: port)
                    for post in chunks[k] {
                        if let r = try? await c.post("/v1/receipts", form: "push_id=\(post.push)&receipt_id=\(post.id)&outcome=media_attached"), r.status == 202
                        {
                            statuses.add("all", "\(post.push)/\(post.id)/\(UUID().uuidString)")
                        } else {
                            statuses.fail()
                        }
                    }
                }
            }
        }
        #expect(statuses.failureCount == 0)
        #expect(statuses.total == 5_000)
        var delivered = 0
        for p in 0..<5 {
            let push = try await server.push("load-\(p)")
            #expect(push["delivered"] as? Int == 900)
            delivered += push["delivered"] as? Int ?? 0
        }
        #expect(delivered == 4_500)
        let metrics = try await server.client().request("GET", "/metrics").text
        #expect(metrics.contains("richpush_receipts_accepted_total 4500\n"))
        #expect(metrics.contains("richpush_receipts_duplicate_total 500\n"))
        #expect(await server.terminate() == 0)
    }

    @Test("kill -9 under load loses no acknowledged receipt")
    func sigkillKeepsAcknowledged() async throws {
        let server = try await ServerProcess()
        let acknowledged = Acknowledged()
        let port = server.port
        let stop = Acknowledged()  // used as a flag: non-empty = stop
        let killFailure: (any Error)? = await withTaskGroup(of: Void.self) { group in
            for k in 0..<8 {
                group.addTask {
                    let c = HTTPTestClient(port: port)
                    var i = 0
                    while stop.total == 0 && i < 100_000 {
                        let id = "c\(k)-\(i)"
                        i += 1
                        guard let r = try? await c.post("/v1/receipts", form: "push_id=kill-\(k)&receipt_id=\(id)") else {
                            if stop.total > 0 { break }
                            continue
                        }
                        if r.status == 202 { acknowledged.add("kill-\(k)", id) }
                    }
                }
            }
            // Let the load build up, then kill the server mid-flight.
            let clock = ContinuousClock()
            let end = clock.now + .seconds(30)
            while acknowledged.total < 3_000 && clock.now < end { try? await Task.sleep(for: .milliseconds(10)) }
            var failure: (any Error)?
            do { try await server.kill9() } catch { failure = error }
            stop.add("stop", "now")
            await group.waitForAll()
            return failure
        }
        if let killFailure { throw killFailure }
        let acked = acknowledged.snapshot
        #expect(acknowledged.total >= 3_000)

        // Restart on the same database: it opens (WAL recovery) and serves the figures.
        try await server.restart()
        for (push, ids) in acked {
            let figures = try await server.push(push)
            #expect((figures["delivered"] as? Int ?? 0) >= ids.count, "\(push)")
        }
        #expect(await server.terminate() == 0)
        // Every acknowledged receipt_id is in the file.
        let stored = try storedIDs(server.database)
        var missing = 0
        for (push, ids) in acked { missing += ids.subtracting(stored[push] ?? []).count }
        #expect(missing == 0)
    }

    @Test("SIGTERM under load exits 0 and keeps every acknowledged receipt")
    func gracefulShutdown() async throws {
        let server = try await ServerProcess()
        let acknowledged = Acknowledged()
        let port = server.port
        let status = await withTaskGroup(of: Void.self) { group in
            for k in 0..<4 {
                group.addTask {
                    let c = HTTPTestClient(port: port)
                    for i in 0..<100_000 {
                        guard let r = try? await c.post("/v1/receipts", form: "push_id=term&receipt_id=c\(k)-\(i)") else { return }
                        if r.status == 202 { acknowledged.add("term", "c\(k)-\(i)") }
                    }
                }
            }
            let clock = ContinuousClock()
            let end = clock.now + .seconds(30)
            while acknowledged.total < 1_000 && clock.now < end { try? await Task.sleep(for: .milliseconds(10)) }
            let status = await server.terminate()
            await group.waitForAll()
            return status
        }
        #expect(status == 0)
        #expect(server.child.standardError.contains("stopped cleanly"))
        let stored = try storedIDs(server.database)
        let acked = acknowledged.snapshot["term"] ?? []
        #expect(acked.count >= 1_000)
        #expect(acked.subtracting(stored["term"] ?? []).isEmpty)
        // After a clean stop the WAL was checkpointed into the main file.
        let wal = server.database.path + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        #expect(walSize == 0)
    }
}
