import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `richpush migrate` applies the server's rules to what it reads (issue 22, item 7): rows of a
/// hand-edited SQLite file that `richpush serve` would have refused are reported by rowid and
/// skipped, the rest is copied, and a re-run goes on past them instead of stopping at the same row.
@Suite("richpush migrate refuses rows the server would refuse")
struct MigrationRulesTests {
    /// Writes rows no server would store straight into the SQLite file, with Python's sqlite3.
    static let tamper = #"""
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        cols = "push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, media_type, user_agent, received_at_ms"
        rows = [
            ("ok-1", "delivered", "r1", "media_attached", None, 120, 5000, "image/jpeg", "ua", 1700000000000),
            ("evil\u202e1gnp", "delivered", "r2", None, None, None, None, None, None, 1700000000000),
            ("p-2", "clicked", "r3", None, None, None, None, None, None, 1700000000000),
            ("p-3", "delivered", "r4", None, None, -5, None, None, None, 1700000000000),
            ("p-4", "delivered", "r5\x00tail", None, None, None, None, None, None, 1700000000000),
            ("x" * 5000000, "delivered", "r6", None, None, None, None, None, None, 1700000000000),
            ("p-6", "delivered", "r7", None, None, None, -1, None, None, 1700000000000),
            ("ok-2", "opened", "r8", None, None, None, None, None, None, 1700000000001),
        ]
        for i, row in enumerate(rows, start=1):
            db.execute(f"INSERT INTO receipts (id, {cols}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (i,) + row)
        pcols = "push_id, title, sent, accepted, first_sent_at_ms, last_sent_at_ms"
        db.execute(f"INSERT INTO pushes (rowid, {pcols}) VALUES (1, 'ok-p', 'Sale', 5, 4, 1700000000000, 1700000000000)")
        db.execute(f"INSERT INTO pushes (rowid, {pcols}) VALUES (2, 'huge', 'x', 9223372036854775807, 1, 1, 1)")
        db.execute(f"INSERT INTO pushes (rowid, {pcols}) VALUES (3, 'neg', 'x', -3, 0, 1, 1)")
        db.execute(f"INSERT INTO pushes (rowid, {pcols}) VALUES (4, 'ok-q', NULL, 2, 2, 1700000000000, 1700000000000)")
        db.commit()
        """#

    @Test("a tampered SQLite file: invalid rows reported by rowid and skipped, the valid ones copied, a re-run goes on")
    func tamperedFile() async throws {
        let fixture = try await StoreFixture.make(.sqlite)
        try await fixture.open().close()  // the schema, empty
        let file = fixture.dbArgument
        let tampered = try await ChildProcess("python3", ["-c", Self.tamper, file]).run(timeout: 60)
        #expect(tampered.status == 0, "\(tampered.stderr)")
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let binary = Fixtures.richpushBinary.path

        let first = try await ChildProcess(binary, ["migrate", "--from", "sqlite:" + file, "--to", database.url]).run(timeout: 180)
        #expect(first.status == 0, "\(first.stderr.prefix(2_000))")
        #expect(first.stdout.contains("  receipts      2 copied (2 new, 0 already there), 6 skipped"), "\(first.stdout)")
        #expect(first.stdout.contains("  pushes        2 copied, 2 skipped"), "\(first.stdout)")
        let stderr = first.stderr
        #expect(stderr.contains("skipped receipts row 2: push_id holds U+202E RIGHT-TO-LEFT OVERRIDE"), "\(stderr.prefix(2_000))")
        #expect(stderr.contains("skipped receipts row 3: event must be one of delivered, opened"))
        #expect(stderr.contains("skipped receipts row 4: elapsed_ms must be a whole number of ms from 0 to 600000"))
        #expect(stderr.contains("skipped receipts row 5: receipt_id holds a NUL byte"))
        #expect(stderr.contains("skipped receipts row 6: push_id is 5000000 bytes; at most 128 bytes"))
        #expect(stderr.contains("skipped receipts row 7: media_bytes must be a whole number of bytes"))
        #expect(stderr.contains("skipped pushes row 2: sent is 9223372036854775807; expected 0…1000000000000"))
        #expect(stderr.contains("skipped pushes row 3: sent is -3"))
        #expect(!stderr.contains("xxxxxxxxxx"), "the 5 MB id is not echoed")

        // Only what the server would have stored is in PostgreSQL.
        #expect(try await database.execute("SELECT push_id || '/' || receipt_id FROM receipts ORDER BY 1") == ["ok-1/r1", "ok-2/r8"])
        #expect(try await database.execute("SELECT push_id FROM pushes ORDER BY 1") == ["ok-p", "ok-q"])
        #expect(try await database.execute("SELECT sum(sent) FROM pushes") == ["7"])

        // Again: nothing left, no row reported twice, no stop at the bad rows.
        let second = try await ChildProcess(binary, ["migrate", "--from", "sqlite:" + file, "--to", database.url]).run(timeout: 180)
        #expect(second.status == 0, "\(second.stderr.prefix(2_000))")
        #expect(second.stdout.contains("nothing left to copy"), "\(second.stdout)")
        #expect(!second.stderr.contains("skipped receipts row"))

        // A row added after the bad ones is copied by the next run.
        let more = try await ChildProcess(
            "python3",
            [
                "-c",
                "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute(\"INSERT INTO receipts (id, push_id, event, receipt_id, received_at_ms) VALUES (9, 'ok-3', 'delivered', 'r9', 1700000000002)\"); db.commit()",
                file,
            ]
        ).run(timeout: 60)
        #expect(more.status == 0, "\(more.stderr)")
        let third = try await ChildProcess(binary, ["migrate", "--from", "sqlite:" + file, "--to", database.url]).run(timeout: 180)
        #expect(third.status == 0, "\(third.stderr.prefix(2_000))")
        #expect(third.stdout.contains("  receipts      1 copied (1 new, 0 already there), 8 copied by an earlier run"), "\(third.stdout)")
        #expect(try await database.execute("SELECT count(*) FROM receipts") == ["3"])
    }
}
