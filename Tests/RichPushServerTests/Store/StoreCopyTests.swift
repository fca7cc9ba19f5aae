import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `richpush migrate`: a SQLite store copied into PostgreSQL answers the same, re-running copies
/// nothing twice, an interrupted copy resumes, and the command line explains itself.
@Suite("richpush migrate (SQLite → PostgreSQL)")
struct StoreCopyTests {
    /// The number of receipt rows the equivalence workload leaves in a store (3,000 posted,
    /// repeats not stored).
    static let storedReceipts = 2_571

    /// A SQLite store holding the equivalence workload (receipts, sends, token states).
    static func filledSQLite() async throws -> (StoreFixture, TestStore) {
        let fixture = try await StoreFixture.make(.sqlite)
        let store = try await fixture.open()
        let (batches, sends) = StoreEquivalenceTests.workload()
        let stored = try await store.run { store in
            var stored = 0
            for batch in batches { stored += try store.insert(batch).filter { $0 }.count }
            for send in sends { try store.recordSend(send) }
            for (i, user) in ["u-1", "u-2", nil, "u-1"].enumerated() {
                _ = try store.registerDevice(
                    DeviceRegistration(
                        token: "token-\(i)", provider: i == 1 ? "fcm" : "apns", platform: i == 1 ? "android" : "ios", userID: user,
                        appVersion: "1.\(i)", registeredAtMs: 1_700_000_000_000 + i))
            }
            _ = try store.unregisterDevice("token-5", atMs: 1_700_000_100_000)
            return stored
        }
        #expect(stored == storedReceipts)
        return (fixture, store)
    }

    /// Everything the API shows, as bytes.
    static func answers(_ store: TestStore) async throws -> [Data] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var out = [try encoder.encode(PushList(pushes: try await store.pushes(limit: 1_000)))]
        out.append(Data(DashboardPage.render(try await store.dashboard(maximumBuckets: 60), generatedAtMs: 1_700_000_000_000).utf8))
        return out
    }

    /// Opens a copy from `sqlite` to `url` and runs it, off the cooperative pool.
    static func copy(
        _ sqlite: String, to url: String, chunkSize: Int = 5_000, stopAfterChunks: Int? = nil
    ) async throws -> (summary: [SQLiteToPostgresMigration.TableSummary], steps: [SQLiteToPostgresMigration.Progress]) {
        try await BlockingWork.run("copy") {
            let migration = try SQLiteToPostgresMigration(sqlitePath: sqlite, postgresURL: url, chunkSize: chunkSize)
            defer { try? migration.close() }
            var steps: [SQLiteToPostgresMigration.Progress] = []
            let summary = try migration.run(stopAfterChunks: stopAfterChunks) { steps.append($0) }
            return (summary, steps)
        }
    }

    /// The PostgreSQL store on `url`, off the cooperative pool.
    static func target(_ url: String) async throws -> TestStore {
        try await TestStore.open { try PostgresStore(url: url, log: { _ in }) }
    }

    @Test("the copy answers exactly as the SQLite store did; a second run copies nothing and changes nothing")
    func copyAndRerun() async throws {
        let (sqlite, source) = try await Self.filledSQLite()
        let expected = try await Self.answers(source)
        let database = try await PostgresTestCluster.shared().makeDatabase()

        let (summary, steps) = try await Self.copy(sqlite.dbArgument, to: database.url, chunkSize: 700)
        #expect(
            summary.map(\.table) == [
                "receipts", "pushes", "send records", "token states", "send batches", "devices", "device tags", "campaign targets",
                "campaign chunks", "campaign variants", "campaigns", "conversions", "webhook events", "webhook endpoints", "admitted codes",
                "media records", "media files",
            ])
        #expect(summary[4].copied == 14 && summary[5].copied == 4)
        #expect(summary[0].copied == Self.storedReceipts && summary[0].copiedBefore == 0)
        #expect(try await database.execute("SELECT count(*) FROM receipts") == [String(summary[0].new)])
        #expect(summary[1].copied == 13 && summary[1].new == 13)
        #expect(steps.filter { $0.table == "receipts" }.map(\.done) == [0, 700, 1_400, 2_100, Self.storedReceipts])
        #expect(steps.filter { $0.table == "receipts" }.allSatisfy { $0.total == Self.storedReceipts })

        let target = try await Self.target(database.url)
        #expect(try await Self.answers(target) == expected)
        for token in (0..<62).map({ "token-\($0)" }) {
            let left = try await source.deviceTokenState(token)
            let right = try await target.deviceTokenState(token)
            #expect(left == right, "\(token)")
        }
        let tokens = (0..<62).map { "token-\($0)" }
        #expect(try await source.run { try $0.skippedTokens(among: tokens) } == target.run { try $0.skippedTokens(among: tokens) })
        #expect(
            try await source.run { try $0.devices(ofUsers: ["u-1", "u-2"], limit: 10) } == target.run { try $0.devices(ofUsers: ["u-1", "u-2"], limit: 10) })
        #expect(try await target.run { try $0.devices(ofUsers: ["u-1"], limit: 10) }.map(\.token) == ["token-3", "token-0"])
        try await source.close()

        let again = try await Self.copy(sqlite.dbArgument, to: database.url).summary
        #expect(again.map(\.copied) == Array(repeating: 0, count: 17))
        #expect(again[0].copiedBefore == Self.storedReceipts)
        #expect(try await Self.answers(target) == expected)
        try await target.close()
    }

    @Test("an interrupted copy resumes where it stopped and ends with the same figures")
    func interruptedCopyResumes() async throws {
        let (sqlite, source) = try await Self.filledSQLite()
        let expected = try await Self.answers(source)
        try await source.close()
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let partial = try await Self.copy(sqlite.dbArgument, to: database.url, chunkSize: 500, stopAfterChunks: 3).summary
        #expect(partial[0].copied == 1_500)
        #expect(try await database.execute("SELECT last_rowid FROM richpush_migrations WHERE item = 'receipts'") == ["1500"])
        let rest = try await Self.copy(sqlite.dbArgument, to: database.url, chunkSize: 500).summary
        #expect(rest[0].copiedBefore == 1_500 && rest[0].copied == Self.storedReceipts - 1_500)
        let target = try await Self.target(database.url)
        #expect(try await Self.answers(target) == expected)
        try await target.close()
    }

    @Test("copied into a database already in use: receipts there are not counted twice, the others are added")
    func mergesIntoLiveDatabase() async throws {
        let sqlite = try await StoreFixture.make(.sqlite)
        let source = try await sqlite.open()
        let old = (0..<100).map {
            StoredReceipt(receipt: RichPushReceipt(pushID: "shared", receiptID: "r\($0)"), userAgent: nil, receivedAtMs: 1_700_000_000_000 + $0)
        }
        _ = try await source.insert(old)
        try await source.recordSend(
            PushSendRecord(pushID: "shared", sentAtMs: 1_699_999_999_000, title: "Old", tokens: (0..<120).map { .init(deviceToken: "t\($0)", status: 200) }))
        try await source.close()
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let live = try await Self.target(database.url)
        // Instances on PostgreSQL already took r50…r149 (a device retried against them) and a second send.
        _ = try await live.insert(
            (50..<150).map {
                StoredReceipt(receipt: RichPushReceipt(pushID: "shared", receiptID: "r\($0)"), userAgent: nil, receivedAtMs: 1_700_000_001_000 + $0)
            })
        try await live.recordSend(
            PushSendRecord(pushID: "shared", sentAtMs: 1_700_000_005_000, title: "New", tokens: (0..<30).map { .init(deviceToken: "u\($0)", status: 200) }))
        let summary = try await Self.copy(sqlite.dbArgument, to: database.url).summary
        #expect(summary[0].copied == 100 && summary[0].new == 50)
        let push = try #require(try await live.push("shared"))
        #expect(push.delivered == 150)
        #expect(push.sent == 150 && push.accepted == 150)
        #expect(push.firstSeen == "2023-11-14T22:13:20.000Z")
        #expect(
            try await database.execute("SELECT title || ' ' || first_sent_at_ms || ' ' || last_sent_at_ms FROM pushes") == ["New 1699999999000 1700000005000"])
        try await live.close()
    }

    @Test("a version-1 SQLite file (before POST /v1/pushes recorded outcomes) is copied")
    func versionOneSource() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("v1.sqlite").path
        let made = try await ChildProcess("python3", ["-c", StoreMigrationTests.version1, path]).run(timeout: 30)
        #expect(made.status == 0, "\(made.stderr)")
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let summary = try await Self.copy(path, to: database.url).summary
        #expect(summary.map(\.copied) == [1, 1, 1] + Array(repeating: 0, count: 14))
        let target = try await Self.target(database.url)
        let old = try #require(try await target.push("old"))
        #expect(old.delivered == 1 && old.accepted == 2 && old.displayRate == 0.5)
        // Its sends came through APNs (the only way before version 3).
        #expect(old.sources == ["apns"])
        try await target.close()
        // The source was only read: still version 1.
        #expect(try StoreConcurrentOpenTests.schema(path).version == 1)
    }

    @Test("bad sources are refused clearly: a missing file, a file that is not RichPush's")
    func badSources() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let url = database.url
        let missing = try #require(throws: RichPushError.self) { try SQLiteToPostgresMigration(sqlitePath: "/nonexistent/richpush.sqlite", postgresURL: url) }
        #expect(missing.code == .io)
        #expect(missing.setting == "migration source")
        #expect(missing.path == "/nonexistent/richpush.sqlite")
        #expect(missing.message.contains("no SQLite database at '/nonexistent/richpush.sqlite' (migration source)"))
        #expect(!missing.message.contains("--"))
        // The command line names its own flags.
        let missingRun = try await ChildProcess(
            Fixtures.richpushBinary.path, ["migrate", "--from", "/nonexistent/richpush.sqlite", "--to", url]
        ).run(timeout: 60)
        #expect(missingRun.status == 1, "\(missingRun.stderr)")
        #expect(
            missingRun.stderr.contains(
                "no SQLite database at '/nonexistent/richpush.sqlite' (--from); give the file richpush serve used (its --db, default ./richpush.sqlite)"),
            "\(missingRun.stderr)")
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let other = dir.appendingPathComponent("other.sqlite").path
        _ = try await ChildProcess(
            "python3", ["-c", "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute('CREATE TABLE notes (id INTEGER)'); db.commit()", other]
        ).run(timeout: 30)
        let foreign = try #require(throws: RichPushError.self) { try SQLiteToPostgresMigration(sqlitePath: other, postgresURL: url) }
        #expect(foreign.message.contains("is not a RichPush SQLite database"))
        #expect(foreign.setting == "migration source")
        #expect(foreign.path == other)
        let foreignRun = try await ChildProcess(Fixtures.richpushBinary.path, ["migrate", "--from", other, "--to", url]).run(timeout: 60)
        #expect(foreignRun.status == 1, "\(foreignRun.stderr)")
        #expect(
            foreignRun.stderr.contains(
                "'\(other)' is not a RichPush SQLite database (no RichPush tables); give the file richpush serve used (--from sqlite:PATH)"),
            "\(foreignRun.stderr)")
        // Nothing was created in PostgreSQL for a refused source.
        #expect(try await database.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == ["0"])
    }

    // MARK: The command line

    @Test("richpush migrate: plain progress lines off a terminal, a summary, exit 0; again: nothing left")
    func commandLine() async throws {
        let (sqlite, source) = try await Self.filledSQLite()
        try await source.close()
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let binary = Fixtures.richpushBinary.path
        let first = try await ChildProcess(binary, ["migrate", "--from", "sqlite:" + sqlite.dbArgument, "--to", database.url, "--batch", "1000"]).run(
            timeout: 120)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("richpush migrate: \(sqlite.dbArgument) → postgresql://richpush@127.0.0.1:"))
        #expect(first.stderr.contains("receipts: \(Self.storedReceipts)/\(Self.storedReceipts) (100 %)\n"))
        #expect(!first.stderr.contains("\r"))
        #expect(first.stdout.contains("  receipts      \(Self.storedReceipts) copied (\(Self.storedReceipts) new, 0 already there)\n"))
        #expect(first.stdout.contains("  pushes        13 copied\n"))
        let second = try await ChildProcess(binary, ["migrate", "--from", sqlite.dbArgument], environment: ["RICHPUSH_DB_URL": database.url]).run(timeout: 120)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("receipts: nothing left to copy"))
        #expect(second.stdout.contains("nothing left to copy: the target is up to date with this file."))
    }

    @Test("richpush migrate on a terminal draws a progress bar")
    func progressBarOnTerminal() async throws {
        let (sqlite, source) = try await Self.filledSQLite()
        try await source.close()
        let database = try await PostgresTestCluster.shared().makeDatabase()
        // script(1) runs the command on a pseudo-terminal and copies what it drew.
        let command = "\(Fixtures.richpushBinary.path) migrate --from \(sqlite.dbArgument) --to \(database.url)"
        let result = try await ChildProcess("script", ["-qec", command, "/dev/null"]).run(timeout: 120)
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("receipts:\r\n"))
        #expect(result.stdout.contains("\r[##############################] \(Self.storedReceipts)/\(Self.storedReceipts) (100%)"))
    }

    @Test("richpush migrate: usage errors exit 64, a database that cannot be reached exits 1 naming host and port")
    func commandLineErrors() async throws {
        let binary = Fixtures.richpushBinary.path
        let noFrom = try await ChildProcess(binary, ["migrate", "--to", "postgres://u@h/db"]).run(timeout: 30)
        #expect(noFrom.status == 64)
        #expect(noFrom.stderr.contains("give the SQLite store to copy with --from sqlite:./richpush.sqlite"))
        let badTo = try await ChildProcess(binary, ["migrate", "--from", "x.sqlite", "--to", "mysql://u:secret@h/db"]).run(timeout: 30)
        #expect(badTo.status == 64)
        #expect(badTo.stderr.contains("--to must be a PostgreSQL URL"))
        #expect(!badTo.stderr.contains("secret"))
        let pgFrom = try await ChildProcess(binary, ["migrate", "--from", "postgres://u@h/db", "--to", "postgres://u@h/db"]).run(timeout: 30)
        #expect(pgFrom.status == 64)
        let badBatch = try await ChildProcess(binary, ["migrate", "--from", "x.sqlite", "--to", "postgres://u@h/db", "--batch", "5"]).run(timeout: 30)
        #expect(badBatch.status == 64)
        let missing = try await ChildProcess(binary, ["migrate", "--from", "/nonexistent/x.sqlite", "--to", "postgres://u@h/db"]).run(timeout: 30)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no SQLite database at '/nonexistent/x.sqlite'"))
        // A file that is not SQLite at all: the message names migrate's own option, never serve's --db.
        let notSQLite = try Fixtures.temporaryDirectory("migrate-not-sqlite").appendingPathComponent("notes.txt")
        defer { try? FileManager.default.removeItem(at: notSQLite.deletingLastPathComponent()) }
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: notSQLite)
        let notDatabase = try await ChildProcess(binary, ["migrate", "--from", notSQLite.path, "--to", "postgres://u@h/db"]).run(timeout: 30)
        #expect(notDatabase.status == 1)
        #expect(notDatabase.stderr.contains("'\(notSQLite.path)' is not a RichPush SQLite database"), "\(notDatabase.stderr)")
        #expect(notDatabase.stderr.contains("give --from the file richpush serve used"), "\(notDatabase.stderr)")
        #expect(!notDatabase.stderr.contains("--db with"), "\(notDatabase.stderr)")

        let (sqlite, source) = try await Self.filledSQLite()
        try await source.close()
        // Reserved for the test: nothing listens there, and no other process can start to.
        let reservation = try PortReservation()
        defer { withExtendedLifetime(reservation) {} }
        let port = reservation.port
        let unreachable = try await ChildProcess(binary, ["migrate", "--from", sqlite.dbArgument, "--to", "postgres://u:secret@127.0.0.1:\(port)/db"]).run(
            timeout: 60)
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.contains("cannot connect to PostgreSQL at 127.0.0.1:\(port)"))
        #expect(!unreachable.stderr.contains("secret"))
        // The advice names migrate's own option (--to), never serve's --db.
        #expect(
            unreachable.stderr.contains("check that the server runs and accepts connections there, and the --to URL or RICHPUSH_DB_URL"),
            "\(unreachable.stderr)")
        #expect(!unreachable.stderr.contains("--db"), "\(unreachable.stderr)")
        // A server that runs but has no such database: said so, with how to create it, naming --to.
        let cluster = try await PostgresTestCluster.shared()
        let noDatabase = try await ChildProcess(binary, ["migrate", "--from", sqlite.dbArgument, "--to", cluster.url(database: "rp_missing")]).run(timeout: 60)
        #expect(noDatabase.status == 1)
        #expect(
            noDatabase.stderr.contains(
                "the server runs, but has no database \"rp_missing\": create it (createdb rp_missing, or CREATE DATABASE as a superuser) or name an existing one in the --to URL or RICHPUSH_DB_URL"
            ), "\(noDatabase.stderr)")
        #expect(!noDatabase.stderr.contains("--db"), "\(noDatabase.stderr)")
        let help = try await ChildProcess(binary, ["migrate", "--help"]).run(timeout: 30)
        #expect(help.status == 0)
        #expect(help.stdout.contains("--from sqlite:PATH"))
        #expect(help.stdout.contains("Safe to re-run"))
        let top = try await ChildProcess(binary, ["--help"]).run(timeout: 30)
        #expect(top.stdout.contains("  migrate     Copy a SQLite store into PostgreSQL"))
    }
}
