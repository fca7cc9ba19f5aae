import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Schema version 1 databases (before `POST /v1/pushes`) open and gain `device_tokens`.
@Suite("SQLite store schema upgrade")
struct StoreMigrationTests {
    /// The version-1 schema as the first statistics server wrote it, plus one receipt and one send.
    static let version1 = """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        db.executescript('''
        CREATE TABLE receipts (id INTEGER PRIMARY KEY, push_id TEXT NOT NULL, event TEXT NOT NULL, receipt_id TEXT,
          outcome TEXT, reason TEXT, elapsed_ms INTEGER, media_bytes INTEGER, media_type TEXT, user_agent TEXT,
          received_at_ms INTEGER NOT NULL);
        CREATE UNIQUE INDEX receipts_push_event_receipt ON receipts (push_id, event, receipt_id);
        CREATE TABLE push_counts (push_id TEXT NOT NULL, event TEXT NOT NULL, outcome TEXT NOT NULL, reason TEXT NOT NULL,
          receipts INTEGER NOT NULL, media_bytes INTEGER NOT NULL, first_ms INTEGER NOT NULL, last_ms INTEGER NOT NULL,
          PRIMARY KEY (push_id, event, outcome, reason)) WITHOUT ROWID;
        CREATE TABLE push_elapsed (push_id TEXT NOT NULL, elapsed_ms INTEGER NOT NULL, receipts INTEGER NOT NULL,
          PRIMARY KEY (push_id, elapsed_ms)) WITHOUT ROWID;
        CREATE TABLE pushes (push_id TEXT PRIMARY KEY, title TEXT, sent INTEGER NOT NULL DEFAULT 0,
          accepted INTEGER NOT NULL DEFAULT 0, first_sent_at_ms INTEGER, last_sent_at_ms INTEGER);
        CREATE TABLE push_tokens (push_id TEXT NOT NULL, device_token TEXT NOT NULL, status INTEGER, reason TEXT,
          apns_id TEXT, sent_at_ms INTEGER NOT NULL, PRIMARY KEY (push_id, device_token));
        INSERT INTO receipts (push_id, event, received_at_ms) VALUES ('old', 'delivered', 1700000000000);
        INSERT INTO push_counts VALUES ('old', 'delivered', '', '', 1, 0, 1700000000000, 1700000000000);
        INSERT INTO pushes (push_id, sent, accepted, first_sent_at_ms, last_sent_at_ms) VALUES ('old', 2, 2, 1700000000000, 1700000000000);
        INSERT INTO push_tokens VALUES ('old', 'tok', 200, NULL, NULL, 1700000000000);
        PRAGMA user_version = 1;
        ''')
        db.commit()
        """

    @Test("a version-1 database keeps its figures and records token states after the upgrade")
    func upgradesVersion1() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("v1.sqlite").path
        let made = try await ChildProcess("python3", ["-c", Self.version1, path]).run(timeout: 30)
        #expect(made.status == 0, "\(made.stderr)")

        let store = try SQLiteStore(path: path)
        let old = try #require(try store.push("old"))
        #expect(old.delivered == 1)
        #expect(old.accepted == 2)
        #expect(old.displayRate == 0.5)
        try store.recordSend(
            PushSendRecord(pushID: "new", sentAtMs: 1_700_000_100_000, tokens: [
                .init(deviceToken: "t1", status: 410, reason: "Unregistered", outcome: "token_inactive", state: .inactive, inactiveSinceMs: 1_700_000_000_000),
                .init(deviceToken: "t2", status: nil, reason: "BadDeviceToken", outcome: "token_bad", state: .bad),
                .init(deviceToken: "t3", status: 200, outcome: "accepted"),
            ]))
        let new = try #require(try store.push("new"))
        #expect(new.sent == 2)  // t2 was never sent (malformed): kept per token, not counted
        #expect(new.accepted == 1)
        #expect(try store.deviceTokenState("t1")?.state == .inactive)
        #expect(try store.deviceTokenState("t1")?.sinceMs == 1_700_000_000_000)
        #expect(try store.deviceTokenState("t2")?.state == .bad)
        // A later 200 for the token clears its state.
        try store.recordSend(PushSendRecord(pushID: "again", sentAtMs: 1_700_000_200_000, tokens: [.init(deviceToken: "t1", status: 200, outcome: "accepted")]))
        #expect(try store.deviceTokenState("t1") == nil)
        try store.close()
    }
}

/// Several processes (here: connections on their own threads) opening one new file at once.
@Suite("SQLite store schema creation under concurrency")
struct StoreConcurrentOpenTests {
    /// Makes `count` threads wait until all of them arrived, then lets them go together.
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

    /// `user_version`, whether `push_tokens.outcome` exists and the tables, read with a fresh connection.
    static func schema(_ path: String) throws -> (version: Int, hasOutcome: Bool, tables: Set<String>) {
        let db = try SQLiteConnection(path: path, readOnly: true)
        let version = try db.prepared("PRAGMA user_version").rows { $0.int(0) ?? -1 }.first ?? -1
        let columns = try db.prepared("SELECT name FROM pragma_table_info('push_tokens')").rows { $0.text(0) ?? "" }
        let tables = try db.prepared("SELECT name FROM sqlite_master WHERE type = 'table'").rows { $0.text(0) ?? "" }
        return (version, columns.contains("outcome"), Set(tables))
    }

    @Test("stores opened at the same moment on a new file all open, and the file is at schema version 2")
    func concurrentOpens() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let openers = 4
        let threads = (0..<openers).map { DedicatedThread(name: "opener \($0)") }
        for iteration in 0..<40 {
            let path = dir.appendingPathComponent("race-\(iteration).sqlite").path
            let start = StartLine(openers)
            let failures = try await withThrowingTaskGroup(of: String?.self) { group in
                for thread in threads {
                    group.addTask {
                        try await thread.run { () -> String? in
                            start.arriveAndWait()
                            do {
                                let store = try SQLiteStore(path: path, synchronous: .normal)
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
            let schema = try Self.schema(path)
            #expect(schema.version == 2)
            #expect(schema.hasOutcome)
            #expect(Set(["receipts", "push_counts", "push_elapsed", "pushes", "push_tokens", "device_tokens"]).isSubset(of: schema.tables))
            // And it opens again afterwards (the broken state failed every later start).
            let again = try SQLiteStore(path: path, synchronous: .normal)
            try again.close()
        }
    }

    @Test("a file left at version 1 with the version-2 column already added opens and is repaired to version 2")
    func repairsHalfMigratedFile() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("broken.sqlite").path
        let broken = StoreMigrationTests.version1.replacingOccurrences(
            of: "PRAGMA user_version = 1;", with: "ALTER TABLE push_tokens ADD COLUMN outcome TEXT;\nPRAGMA user_version = 1;")
        let made = try await ChildProcess("python3", ["-c", broken, path]).run(timeout: 30)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try Self.schema(path).version == 1)
        #expect(try Self.schema(path).hasOutcome)

        let store = try SQLiteStore(path: path)
        #expect(try store.push("old")?.delivered == 1)
        try store.recordSend(PushSendRecord(pushID: "new", sentAtMs: 1_700_000_100_000, tokens: [.init(deviceToken: "t1", status: 410, reason: "Unregistered", outcome: "token_inactive", state: .inactive)]))
        #expect(try store.deviceTokenState("t1")?.state == .inactive)
        try store.close()
        let schema = try Self.schema(path)
        #expect(schema.version == 2)
        #expect(schema.tables.contains("device_tokens"))
    }

    @Test("a file that is not SQLite is refused with a message naming it and --db")
    func refusesNonDatabase() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("notjson.json").path
        try Data(#"{"this": "is JSON, not SQLite", "padding": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: RichPushError.self) { try SQLiteStore(path: path) }
        #expect(error.code == .store)
        #expect(error.message.contains("'\(path)' is not a RichPush SQLite database"))
        #expect(error.message.contains("pass --db with a new or existing richpush database path"))
        #expect(!error.message.contains("PRAGMA"))
        // Nothing was written into the file.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(9) == Data(#"{"this": "#.utf8))
    }

    @Test("a SQLite database of another program is refused, not given RichPush tables")
    func refusesForeignDatabase() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("other.sqlite").path
        let made = try await ChildProcess("python3", ["-c", "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute('CREATE TABLE notes (id INTEGER)'); db.commit()", path]).run(timeout: 30)
        #expect(made.status == 0, "\(made.stderr)")
        let error = try #require(throws: RichPushError.self) { try SQLiteStore(path: path) }
        #expect(error.message.contains("not a RichPush one (tables: notes)"))
        #expect(try Self.schema(path).tables == ["notes"])
    }
}
