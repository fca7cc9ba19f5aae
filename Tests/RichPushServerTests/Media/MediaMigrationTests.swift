import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `richpush migrate` copies the media edge's tables (`push_media`, `media_objects`) with the
/// server's rules on each row: the PostgreSQL edge serves the same files and the push pages say
/// the same; a file whose bytes do not hash to its name, or a record with an action the server
/// never writes, is skipped by rowid; a re-run copies nothing.
@Suite("richpush migrate: the media edge's tables")
struct MediaMigrationTests {
    static func file(_ seed: UInt8, count: Int = 3_000) -> MediaObject {
        var bytes = [UInt8](repeating: seed, count: count)
        bytes[0] = 0xFF
        bytes[1] = 0xD8
        for i in 2..<count { bytes[i] = UInt8(truncatingIfNeeded: i &* Int(seed)) }
        return MediaObject(bytes: Data(bytes), fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 1_700_000_000_000 + Int(seed))
    }

    @Test("records and files copied (referenced and not), bad rows skipped by rowid, a re-run copies nothing")
    func copiesMedia() async throws {
        let sqlite = try await StoreFixture.make(.sqlite)
        let source = try await sqlite.open()
        let referenced = Self.file(3), loose = Self.file(5)
        let records = [
            PushMediaRecord(
                pushID: "sale-1", originalURL: "https://img.example.com/a.webp", reason: "unsupported_format", action: "optimized",
                originalType: "org.webmproject.webp", originalBytes: 41_746, sha256: referenced.sha256, optimizedType: "image/jpeg",
                optimizedBytes: referenced.bytes.count, sentURL: "https://push.example.com" + referenced.path, recordedAtMs: 1_700_000_000_100),
            PushMediaRecord(
                pushID: "sale-1", originalURL: "https://img.example.com/b.jpg", reason: nil, action: "checked", originalType: "public.jpeg",
                originalBytes: 89_696, recordedAtMs: 1_700_000_000_100),
            PushMediaRecord(
                pushID: "sale-2", originalURL: "not a url", reason: "bad_url", action: "refused", recordedAtMs: 1_700_000_000_200),
        ]
        try await source.run { store in
            for r in records { try store.recordMedia(r) }
            for f in [referenced, loose] { _ = try store.storeMedia(f, budgetBytes: 10_000_000) }
        }
        let expectedTotals = try await source.run { try $0.mediaCheckTotals(fromMs: nil, toMs: nil) }
        try await source.close()
        // Damage the file by hand: a file under another file's name, a record the server never writes.
        let damaged = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("INSERT INTO media_objects VALUES (?, 'jpg', 'image/jpeg', 4, X'FFD8FFE0', 1)", ("b" * 64,))
            db.execute("INSERT INTO push_media (push_id, original_url, action, recorded_at_ms) VALUES ('sale-3', 'https://x/y.jpg', 'deleted', 5)")
            db.commit()
            """
        let python = try await ChildProcess("python3", ["-c", damaged, sqlite.dbArgument]).run(timeout: 30)
        #expect(python.status == 0, "\(python.stderr)")

        let database = try await PostgresTestCluster.shared().makeDatabase()
        let summary = try await StoreCopyTests.copy(sqlite.dbArgument, to: database.url).summary
        #expect(Array(summary.map(\.table).suffix(2)) == ["media records", "media files"])
        let recordsCopy = try #require(summary.first { $0.table == "media records" })
        let filesCopy = try #require(summary.first { $0.table == "media files" })
        #expect(recordsCopy.copied == 4 && recordsCopy.new == 3)
        #expect(recordsCopy.skipped.map(\.rowid) == [4])
        #expect(recordsCopy.skipped.first?.problem.contains("action is 'deleted'") == true, "\(recordsCopy.skipped)")
        #expect(filesCopy.copied == 3 && filesCopy.new == 2)
        #expect(filesCopy.skipped.map(\.rowid) == [3])
        #expect(filesCopy.skipped.first?.problem.contains("do not hash to its sha256") == true, "\(filesCopy.skipped)")

        let target = try await StoreCopyTests.target(database.url)
        #expect(try await target.run { try $0.pushMedia("sale-1") } == records.filter { $0.pushID == "sale-1" }.sorted { $0.originalURL < $1.originalURL })
        #expect(try await target.run { try $0.pushMedia("sale-2") } == [records[2]])
        #expect(try await target.run { try $0.pushMedia("sale-3") }.isEmpty)
        for f in [referenced, loose] { #expect(try await target.run { try $0.media(f.sha256) } == f) }
        #expect(try await target.run { try $0.media(String(repeating: "b", count: 64)) } == nil)
        #expect(try await target.run { try $0.mediaCheckTotals(fromMs: nil, toMs: nil) }.rows.count == expectedTotals.rows.count)
        #expect(try await target.run { try $0.mediaCheckTotals(fromMs: nil, toMs: nil) }.prevented.map(\.count) == expectedTotals.prevented.map(\.count))
        // The copied file is referenced on the target too: a full store evicts the loose one, never it.
        let next = Self.file(7)
        #expect(try await target.run { try $0.storeMedia(next, budgetBytes: 6_000) } == .stored(evicted: [loose.sha256]))
        try await target.close()

        let again = try await StoreCopyTests.copy(sqlite.dbArgument, to: database.url).summary
        #expect(again.map(\.copied) == Array(repeating: 0, count: again.count))
        #expect(again.suffix(2).map(\.copiedBefore) == [4, 3])
    }
}
