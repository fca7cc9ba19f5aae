import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The media edge's store over time (issue 28): it used to only fill (every copy stayed
/// referenced by its push's record forever, and past the bound every conversion was
/// `media_store_full`). Now a record holds its copy for 30 days (APNs keeps a notification at
/// most that long), eviction takes the least recently used, PostgreSQL moves the bytes in
/// binary, and each instance keeps the files it serves in memory.
@Suite("media edge: references expire, least recently used out, binary bytes, the in-memory cache")
struct MediaStoreLifetimeTests {
    static let day = 86_400_000

    static func object(_ seed: UInt8, at ms: Int, count: Int = 400) -> MediaObject {
        MediaObject(bytes: MediaEdgeTests.file(count, seed: seed), fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: ms)
    }

    static func record(_ pushID: String, _ object: MediaObject, at ms: Int) -> PushMediaRecord {
        PushMediaRecord(
            pushID: pushID, originalURL: "https://img.example.com/\(pushID).webp", reason: nil, action: "optimized", sha256: object.sha256, recordedAtMs: ms)
    }

    @Test("a push's record holds its copy for 30 days, then the copy can be evicted; a new push of the same image keeps it", arguments: StoreBackend.allCases)
    func referencesExpire(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        let start = 1_800_000_000_000
        let old = Self.object(1, at: start)
        let recent = Self.object(2, at: start + Self.day)
        for (object, push) in [(old, "old"), (recent, "recent")] {
            _ = try await store.run { try $0.storeMedia(object, budgetBytes: 800) }
            try await store.run { try $0.recordMedia(Self.record(push, object, at: object.storedAtMs)) }
        }
        // Day 20: both referenced, the store full: nothing fits.
        let early = Self.object(3, at: start + 20 * Self.day)
        #expect(try await store.run { try $0.storeMedia(early, budgetBytes: 800) } == .full(referencedBytes: 800))
        // Day 30 + 1 ms after the old push: no device can still receive it; its copy goes.
        let late = Self.object(4, at: start + 30 * Self.day + 1)
        #expect(try await store.run { try $0.storeMedia(late, budgetBytes: 800) } == .stored(evicted: [old.sha256]))
        #expect(try await store.run { try $0.media(recent.sha256) }?.bytes == recent.bytes)
        // The record itself stays (the push's page still shows what was sent).
        #expect(try await store.run { try $0.pushMedia("old") }.first?.sha256 == old.sha256)
        try await store.close()
    }

    @Test("least recently used out: a file stored again by a later push outlives one stored after it once", arguments: StoreBackend.allCases)
    func leastRecentlyUsed(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        let a = Self.object(10, at: 1), b = Self.object(11, at: 2), c = Self.object(12, at: 3)
        for object in [a, b, c] { _ = try await store.run { try $0.storeMedia(object, budgetBytes: 1_200) } }
        // A later push makes a again.
        let again = {
            var copy = a; copy.storedAtMs = 10; return copy
        }()
        #expect(try await store.run { try $0.storeMedia(again, budgetBytes: 1_200) } == .stored(evicted: []))
        let d = Self.object(13, at: 11)
        #expect(try await store.run { try $0.storeMedia(d, budgetBytes: 1_200) } == .stored(evicted: [b.sha256]))
        #expect(try await store.run { try $0.media(a.sha256) }?.storedAtMs == 10)
        let e = Self.object(14, at: 12)
        #expect(try await store.run { try $0.storeMedia(e, budgetBytes: 1_200) } == .stored(evicted: [c.sha256]))
        try await store.close()
    }

    @Test("every byte value round-trips (PostgreSQL in binary, no hex)", arguments: StoreBackend.allCases)
    func bytesRoundTrip(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        var bytes = Data([0xFF, 0xD8, 0xFF, 0x00, 0x00])
        for _ in 0..<1_200 { bytes.append(contentsOf: (0...255).map { UInt8($0) }) }
        let object = MediaObject(bytes: bytes, fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 1_800_000_000_123)
        _ = try await store.run { try $0.storeMedia(object, budgetBytes: 10_000_000) }
        let read = try #require(try await store.run { try $0.media(object.sha256) })
        #expect(read == object)
        try await store.close()
    }

    @Test("GET /m/ from memory: a file served once is served again without the store, within --media-cache-bytes")
    func inMemoryCache() async throws {
        let directory = try Fixtures.temporaryDirectory("media-cache")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("edge.sqlite").path
        let server = try InProcessServer(store: try SQLiteStore(path: path)) {
            MediaEdgeTests.edge(&$0)
            $0.mediaEdge?.cacheBytes = 1_000
        }
        let a = Self.object(20, at: 1, count: 600), b = Self.object(21, at: 2, count: 600)
        for object in [a, b] { _ = try server.server.store.storeMedia(object, budgetBytes: 10_000_000) }
        let client = server.client()
        #expect(try await client.request("GET", a.path).body == a.bytes)
        // Gone from the store (as if another instance evicted it): this instance still has it.
        let deleted = try await ChildProcess(
            "python3",
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('DELETE FROM media_objects WHERE sha256 = ?', (sys.argv[2],)); c.commit()",
                path, a.sha256,
            ]
        ).run(timeout: 30)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try await client.request("GET", a.path).body == a.bytes)
        // b does not fit beside a (1,000 bytes): a goes out, and is now a 404.
        #expect(try await client.request("GET", b.path).body == b.bytes)
        #expect(try await client.request("GET", a.path).status == 404)
        let metrics = try await client.request("GET", "/metrics").text
        #expect(metrics.contains("richpush_media_cache_requests_total{result=\"hit\"} 1"), "\(metrics)")
        #expect(metrics.contains("richpush_media_cache_bytes 600"), "\(metrics)")
    }
}
