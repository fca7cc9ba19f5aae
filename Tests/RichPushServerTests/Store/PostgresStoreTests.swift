import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// What only the PostgreSQL store has: URLs, several stores (instances) on one database, the
/// schema under an advisory lock, session settings.
@Suite("PostgreSQL store")
struct PostgresStoreTests {
    /// Makes `count` threads wait until all arrived, then lets them go together.
    final class StartLine: @unchecked Sendable {
        private let condition = NSCondition()
        private var waiting: Int
        init(_ count: Int) { waiting = count }
        func arriveAndWait() {
            condition.withLock {
                waiting -= 1
                if waiting == 0 { condition.broadcast() }
                while waiting > 0 { condition.wait() }
            }
        }
    }

    /// A PostgreSQL store on `url`, its calls off the cooperative pool.
    static func store(_ url: String, connections: Int = PostgresStore.defaultConnections) async throws -> TestStore {
        try await TestStore.open { try PostgresStore(url: url, connections: connections, log: { _ in }, clock: .caller) }
    }

    /// The error opening a store on `url` throws (off the cooperative pool); `nil` if it opened.
    static func openingError(_ url: String) async throws -> RichPushError? {
        try await BlockingWork.run("open-store") { () -> RichPushError? in
            do {
                try PostgresStore(url: url, log: { _ in }).close()
                return nil
            } catch let error as RichPushError {
                return error
            }
        }
    }

    @Test("URLs: host, port, database and user for messages; the password and query values never shown")
    func urls() throws {
        let info = try PostgresConnectionInfo(url: "postgres://app:s3cret@db.internal:6432/richpush?sslmode=require&application_name=x")
        #expect(info.host == "db.internal")
        #expect(info.port == "6432")
        #expect(info.database == "richpush")
        #expect(info.user == "app")
        #expect(info.endpoint == "db.internal:6432")
        #expect(info.redacted == "postgresql://app@db.internal:6432/richpush")
        #expect(try PostgresConnectionInfo(url: "postgresql:///richpush?host=/var/run/postgresql").endpoint == "the socket in /var/run/postgresql (port 5432)")
        #expect(try PostgresConnectionInfo(url: "postgresql://[::1]:5433/x").endpoint == "[::1]:5433")
        #expect(PostgresConnectionInfo.redact("postgres://app:s3cret@h/db?sslpassword=x") == "postgres://app:***@h/db?…")
        let bad = try #require(throws: RichPushError.self) { try PostgresConnectionInfo(url: "postgres://app:s3cret@h/db?nonsense=1") }
        #expect(bad.code == .configuration)
        #expect(bad.message.contains("invalid URI query parameter"))
        #expect(!bad.message.contains("s3cret"))
        #expect(StoreLocation.parse("postgres://u@h/db") == .postgres(url: "postgres://u@h/db"))
        #expect(StoreLocation.parse("POSTGRESQL://u@h/db") == .postgres(url: "POSTGRESQL://u@h/db"))
        #expect(StoreLocation.parse("sqlite:./x.sqlite") == .sqlite(path: "./x.sqlite"))
        #expect(StoreLocation.parse(nil) == .sqlite(path: "richpush.sqlite"))
        #expect(StoreLocation.resolve(option: nil, environment: ["RICHPUSH_DB_URL": "postgres://u@h/db"]) == .postgres(url: "postgres://u@h/db"))
        #expect(StoreLocation.resolve(option: "./a.sqlite", environment: ["RICHPUSH_DB_URL": "postgres://u@h/db"]) == .sqlite(path: "./a.sqlite"))
        #expect(StoreLocation.postgres(url: "postgres://u:pw@h:1/db").displayName == "postgresql://u@h:1/db")
    }

    @Test("4 stores (as 4 instances) writing overlapping receipts at once: each key stored once, exact counts, no deadlock")
    func concurrentWritersOnOneDatabase() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let url = database.url
        let stores = try await BlockingWork.run("open-stores") { try (0..<4).map { _ in try PostgresStore(url: url, log: { _ in }) } }
        let start = StartLine(stores.count)
        // Each writer posts the same 2,000 keys in its own random order, in batches of 100.
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for (w, store) in stores.enumerated() {
                group.addTask {
                    try await DedicatedThread.run(named: "writer-\(w)") {
                        var keys = (0..<2_000).map {
                            RichPushReceipt(pushID: "race-\($0 % 7)", receiptID: "k\($0)", outcome: .mediaAttached, elapsedMs: $0 % 50)
                        }
                        keys.shuffle()
                        start.arriveAndWait()
                        var new = 0
                        for chunk in stride(from: 0, to: keys.count, by: 100) {
                            let batch = keys[chunk..<min(chunk + 100, keys.count)].map {
                                StoredReceipt(receipt: $0, userAgent: "w\(w)", receivedAtMs: 1_700_000_000_000 + chunk)
                            }
                            new += try store.insert(batch).filter { $0 }.count
                        }
                        return new
                    }
                }
            }
            var all: [Int] = []
            for try await n in group { all.append(n) }
            return all
        }
        #expect(results.reduce(0, +) == 2_000)
        let first = stores[0]
        let pushes = try await BlockingWork.run("read") { try first.pushes(limit: 100) }
        #expect(pushes.map(\.delivered).reduce(0, +) == 2_000)
        #expect(pushes.map(\.elapsedMs.count).reduce(0, +) == 2_000)
        #expect(try await database.execute("SELECT count(*) FROM receipts") == ["2000"])
        try await BlockingWork.run("close") { for store in stores { try store.close() } }
    }

    @Test("8 stores opened at the same moment on an empty database all open, with one schema")
    func concurrentSchemaCreation() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let threads = (0..<8).map { DedicatedThread(name: "opener \($0)") }
        for iteration in 0..<5 {
            let database = try await cluster.makeDatabase()
            let start = StartLine(threads.count)
            let url = database.url
            let failures = try await withThrowingTaskGroup(of: String?.self) { group in
                for thread in threads {
                    group.addTask {
                        try await thread.run { () -> String? in
                            start.arriveAndWait()
                            do {
                                let store = try PostgresStore(url: url, connections: 2, log: { _ in })
                                try store.close()
                                return nil
                            } catch {
                                return String(describing: error)
                            }
                        }
                    }
                }
                var out: [String] = []
                for try await failure in group { if let failure { out.append(failure) } }
                return out
            }
            #expect(failures.isEmpty, "iteration \(iteration): \(failures)")
            #expect(try await database.execute("SELECT value FROM richpush_meta") == [String(PostgresSchema.version)])
            #expect(try await database.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == [String(PostgresSchema.tables.count)])
        }
    }

    @Test("a database with tables of the same names that are not RichPush's is refused; a schema of its own works")
    func foreignTables() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        try await database.execute("CREATE TABLE receipts (id integer); CREATE TABLE pushes (id integer)")
        let error = try #require(try await Self.openingError(database.url))
        #expect(error.code == .store)
        #expect(error.message.contains("already has tables that are not RichPush's (pushes, receipts)"))
        #expect(try await database.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == ["2"])
        // libpq parameters in the URL reach the server: a schema of RichPush's own.
        try await database.execute("CREATE SCHEMA richpush")
        let store = try await Self.store(database.url + "?options=-csearch_path%3Drichpush")
        #expect(try await store.insert([StoredReceipt(receipt: RichPushReceipt(pushID: "p", receiptID: "a"), userAgent: nil, receivedAtMs: 1)]) == [true])
        try await store.close()
        #expect(try await database.execute("SELECT count(*) FROM richpush.receipts") == ["1"])
    }

    @Test("deploy/postgres/partitioned-schema.sql: push tables hash-partitioned by push_id answer as SQLite does")
    func hashPartitionedSchema() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let ddl = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("deploy/postgres/partitioned-schema.sql"), encoding: .utf8)
        #expect(ddl.contains("pg_advisory_xact_lock(\(PostgresSchema.advisoryLockKey))"))
        try await database.execute(ddl)
        let sqlite = try await StoreFixture.make(.sqlite)
        let a = try await sqlite.open()
        let b = try await Self.store(database.url)
        let (batches, sends) = StoreEquivalenceTests.workload()
        for batch in batches {
            let left = try await a.insert(batch), right = try await b.insert(batch)
            #expect(left == right)
        }
        for send in sends {
            try await a.recordSend(send)
            try await b.recordSend(send)
        }
        #expect(try await StoreCopyTests.answers(a) == StoreCopyTests.answers(b))
        // The rows really are spread over the partitions.
        #expect(try await database.execute("SELECT count(DISTINCT tableoid) FROM receipts") == ["8"])
        #expect(try await database.execute("SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE c.relkind = 'r'") == ["48"])
        try await a.close()
        try await b.close()
    }

    @Test("a database with a newer RichPush schema is refused, naming both versions")
    func newerSchema() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        #expect(try await Self.openingError(database.url) == nil)
        try await database.execute("UPDATE richpush_meta SET value = '99' WHERE key = 'schema_version'")
        let error = try #require(try await Self.openingError(database.url))
        #expect(error.message.contains("has RichPush schema version 99, newer than this richpush (\(PostgresSchema.version))"))
    }

    @Test("sessions commit with synchronous_commit=on even when the database default is off; a stronger setting is kept")
    func synchronousCommit() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        try await database.execute("ALTER DATABASE \(database.name) SET synchronous_commit = off")
        let info = try PostgresConnectionInfo(url: database.url)
        /// `SHOW synchronous_commit` in a new session (with or without RichPush's session setup).
        func setting(_ setup: [String]) async throws -> String? {
            try await BlockingWork.run("session") { try PostgresConnection(info: info, sessionSetup: setup).execute("SHOW synchronous_commit").text(0, 0) }
        }
        #expect(try await setting(PostgresStore.sessionSetup) == "on")
        #expect(try await setting([]) == "off")
        try await database.execute("ALTER DATABASE \(database.name) SET synchronous_commit = remote_apply")
        #expect(try await setting(PostgresStore.sessionSetup) == "remote_apply")
    }

    @Test("U+0000, which PostgreSQL text cannot hold, becomes U+FFFD instead of failing the write")
    func nulCharacter() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let store = try await Self.store(database.url)
        try await store.recordSend(PushSendRecord(pushID: "nul", sentAtMs: 1, title: "a\u{0}b", tokens: [.init(deviceToken: "t", status: 200)]))
        #expect(try await database.execute("SELECT title FROM pushes") == ["a\u{FFFD}b"])
        #expect(try await store.insert([StoredReceipt(receipt: RichPushReceipt(pushID: "nul"), userAgent: "x\u{0}y", receivedAtMs: 1)]) == [true])
        try await store.close()
    }

    @Test("a connection the server dropped while idle is replaced before use; health stays available")
    func droppedIdleConnection() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let store = try await Self.store(database.url)
        _ = try await store.insert([StoredReceipt(receipt: RichPushReceipt(pushID: "p", receiptID: "1"), userAgent: nil, receivedAtMs: 1)])
        let connections = try await store.run { ($0 as? PostgresStore)?.connectionCount ?? -1 }
        // What a restart, a failover or a proxy's idle timeout does: end every session of the store.
        let ended = try await database.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(database.name)' AND pid <> pg_backend_pid()")
        #expect(ended == [String(connections)])
        // The writer's session is dead. Whether the store sees that before its next batch depends
        // on whether the server's "terminating connection" message reached the socket first
        // (pg_terminate_backend only signals the backend): either the batch goes on a replacement
        // connection at once, or it fails as unavailable (it may not be re-sent: it could have
        // committed) and the store reconnects for the next one. Both are right; never a wrong answer.
        let first = try await store.run { store -> Result<[Bool], RichPushError> in
            do {
                return .success(try store.insert([StoredReceipt(receipt: RichPushReceipt(pushID: "p", receiptID: "2"), userAgent: nil, receivedAtMs: 2)]))
            } catch let error as RichPushError {
                return .failure(error)
            }
        }
        switch first {
        case .success(let stored):
            #expect(stored == [true])
        case .failure(let lost):
            #expect(lost.code == .storeUnavailable)
            // …and the store reconnected at once: the next one is stored.
            #expect(try await store.insert([StoredReceipt(receipt: RichPushReceipt(pushID: "p", receiptID: "2"), userAgent: nil, receivedAtMs: 2)]) == [true])
        }
        // Reads work, the receipt is there once, health is fine.
        #expect(try await store.push("p")?.delivered == 2)
        #expect(try await store.run { ($0 as? PostgresStore)?.health() } == .available)
        try await store.close()
        #expect(try await store.run { ($0 as? PostgresStore)?.health().isAvailable } == false)
    }
}
