import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

#if canImport(Glibc)
import Glibc
#endif

/// A frozen or locked PostgreSQL under `richpush serve` (issue 22, item 1): receipts get `503`
/// with `Retry-After` within the stated bound (`PostgresDeadline`: 3 s watchdog + 2 s connect,
/// asserted as < 6.5 s), never a `202`; `/healthz` turns `503`; `202` again once the database
/// answers, without a restart.
@Suite("PostgreSQL deadlines", .serialized)
struct PostgresDeadlineTests {
    /// The upper bound stated in `PostgresDeadline` (watchdog + connect_timeout) plus scheduling slack.
    static let bound = 6.5

    /// The postmaster's pid and every process whose parent it is.
    static func clusterProcesses(_ cluster: PostgresTestCluster) throws -> [pid_t] {
        let pidFile = cluster.directory.appendingPathComponent("data/postmaster.pid")
        let first = try String(contentsOf: pidFile, encoding: .utf8).split(separator: "\n").first.map(String.init) ?? ""
        let postmaster = try #require(pid_t(first.trimmingCharacters(in: .whitespaces)))
        var pids = [postmaster]
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8) else { continue }
            // `pid (comm) state ppid …`: the fields after the last ')'.
            guard let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { pids.append(pid) }
        }
        return pids
    }

    /// Posts one receipt and times the answer.
    static func timedReceipt(_ c: HTTPTestClient, _ n: Int) async throws -> (status: Int, retryAfter: String?, seconds: Double) {
        let start = Date()
        let r = try await c.post("/v1/receipts", form: "push_id=frozen&receipt_id=r\(n)&outcome=media_attached")
        return (r.status, r.headers["retry-after"], Date().timeIntervalSince(start))
    }

    @Test("SIGSTOP of every PostgreSQL process for ~8 s: 503 + Retry-After within the bound, healthz 503, 202 after SIGCONT")
    func frozenServer() async throws {
        let cluster = try await PostgresTestCluster(label: "freeze")
        defer { cluster.destroy() }
        let database = try await cluster.makeDatabase()
        let server = try await ServerProcess(dbArgument: database.url)
        let c = server.client()
        let h = server.client()
        #expect(try await c.post("/v1/receipts", form: "push_id=frozen&receipt_id=r0&outcome=media_attached").status == 202)
        let pids = try Self.clusterProcesses(cluster)
        #expect(pids.count > 1)
        for pid in pids { kill(pid, SIGSTOP) }
        var resumed = false
        defer { if !resumed { for pid in pids { kill(pid, SIGCONT) } } }
        let frozenAt = Date()
        var answers: [(status: Int, retryAfter: String?, seconds: Double)] = []
        var healthDuringFreeze: [Int] = []
        var n = 1
        while Date().timeIntervalSince(frozenAt) < 8 {
            answers.append(try await Self.timedReceipt(c, n))
            n += 1
            healthDuringFreeze.append(try await h.request("GET", "/healthz").status)
        }
        for pid in pids { kill(pid, SIGCONT) }
        resumed = true
        let firstUnhealthy = healthDuringFreeze.firstIndex(of: 503).map { answers[0...$0].map(\.seconds).reduce(0, +) }
        print(
            "frozen PostgreSQL: \(answers.count) receipts, slowest answer \(String(format: "%.2f", answers.map(\.seconds).max() ?? 0)) s, healthz 503 after \(firstUnhealthy.map { String(format: "%.2f", $0) } ?? "-") s"
        )
        #expect(!answers.isEmpty)
        for answer in answers {
            #expect(answer.status == 503, "a receipt answered \(answer.status) while PostgreSQL was frozen")
            #expect(answer.retryAfter != nil)
            #expect(answer.seconds < Self.bound, "a receipt waited \(answer.seconds) s")
        }
        #expect(healthDuringFreeze.contains(503))
        // Recovery without a restart.
        var recovered: Double?
        let thawedAt = Date()
        while Date().timeIntervalSince(thawedAt) < 15 {
            if try await c.post("/v1/receipts", form: "push_id=frozen&receipt_id=after\(n)&outcome=media_attached").status == 202 {
                recovered = Date().timeIntervalSince(thawedAt)
                break
            }
            n += 1
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        #expect(recovered != nil)
        var healthy = false
        for _ in 0..<30 where !healthy {
            healthy = try await h.request("GET", "/healthz").status == 200
            if !healthy { try await Task.sleep(nanoseconds: 200_000_000) }
        }
        #expect(healthy)
        // Every 202 was committed (r0 and the one after the thaw). The batch in flight when the
        // freeze began was answered 503 but may commit on SIGCONT (the server had read it): the
        // device's retry is deduplicated by its key. Nothing else.
        let stored = Set(try await database.execute("SELECT receipt_id FROM receipts").compactMap { $0 })
        #expect(stored.isSuperset(of: ["r0", "after\(n)"]))
        #expect(stored.filter { $0 != "r0" && !$0.hasPrefix("after") }.isSubset(of: ["r1"]), "\(stored)")
        #expect(await server.terminate() == 0)
    }

    @Test("LOCK TABLE receipts IN ACCESS EXCLUSIVE MODE from another session: 503 within the bound, healthz 503, 202 after the unlock")
    func lockedTable() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let server = try await ServerProcess(dbArgument: database.url)
        let c = server.client()
        let h = server.client()
        #expect(try await c.post("/v1/receipts", form: "push_id=locked&receipt_id=r0&outcome=media_attached").status == 202)
        let locker = try PostgresConnection(info: PostgresConnectionInfo(url: database.url, applicationName: "locker"))
        try locker.execute("BEGIN")
        try locker.execute("LOCK TABLE receipts IN ACCESS EXCLUSIVE MODE")
        var answers: [(status: Int, retryAfter: String?, seconds: Double)] = []
        var health: [Int] = []
        let lockedAt = Date()
        var n = 1
        while Date().timeIntervalSince(lockedAt) < 6 {
            answers.append(try await Self.timedReceipt(c, n))
            n += 1
            health.append(try await h.request("GET", "/healthz").status)
        }
        try locker.execute("COMMIT")
        print("locked receipts: \(answers.count) receipts, slowest answer \(String(format: "%.2f", answers.map(\.seconds).max() ?? 0)) s")
        for answer in answers {
            #expect(answer.status == 503)
            #expect(answer.retryAfter != nil)
            #expect(answer.seconds < Self.bound)
        }
        #expect(health.contains(503))
        #expect(try await c.post("/v1/receipts", form: "push_id=locked&receipt_id=after&outcome=media_attached").status == 202)
        var healthy = false
        for _ in 0..<30 where !healthy {
            healthy = try await h.request("GET", "/healthz").status == 200
            if !healthy { try await Task.sleep(nanoseconds: 200_000_000) }
        }
        #expect(healthy)
        #expect(try await database.execute("SELECT count(*) FROM receipts") == ["2"])
        #expect(await server.terminate() == 0)
    }
}
