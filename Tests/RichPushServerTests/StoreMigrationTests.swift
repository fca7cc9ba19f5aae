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
            PushSendRecord(
                pushID: "new", sentAtMs: 1_700_000_100_000,
                tokens: [
                    .init(
                        deviceToken: "t1", status: 410, reason: "Unregistered", outcome: "token_inactive", state: .inactive, inactiveSinceMs: 1_700_000_000_000),
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
