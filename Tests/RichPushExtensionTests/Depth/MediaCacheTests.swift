import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

@Suite("Media cache (LRU, bounded, shared by processes)", .serialized)
struct MediaCacheTests {
    func file(_ dir: URL, _ name: String, bytes: Int, fill: UInt8 = 7) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try Data(repeating: fill, count: bytes).write(to: url)
        return url
    }

    @Test func cacheControlDecidesWhetherAndHowLongToStore() {
        #expect(CacheControl(header: nil).freshness == CacheControl.defaultFreshness)
        #expect(CacheControl(header: "public, max-age=600").freshness == 600)
        #expect(CacheControl(header: "no-store").freshness == nil)
        #expect(CacheControl(header: "private, no-cache").freshness == nil)
        #expect(CacheControl(header: "max-age=0").freshness == nil)
        #expect(CacheControl(header: "max-age=abc").freshness == nil)
        #expect(CacheControl(header: "Max-Age=\"30\"").freshness == 30)
    }

    @Test func aHitIsACopyInTheNotificationsFolderAndTheCachedFileStays() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = MediaCache(directory: dir.appendingPathComponent("cache"))
        let photo = Fixtures.media("photo.jpg")
        #expect(try cache.store("https://cdn.example/a.jpg", file: photo, cacheControl: "max-age=60"))
        let destination = dir.appendingPathComponent("notification-1/a.jpg")
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(try cache.retrieve("https://cdn.example/a.jpg", to: destination) == 89_696)
        #expect(try Data(contentsOf: destination) == Data(contentsOf: photo))
        // The system moves the attachment away; the cache still has its own copy.
        try FileManager.default.removeItem(at: destination)
        let again = dir.appendingPathComponent("notification-1/b.jpg")
        #expect(try cache.retrieve("https://cdn.example/a.jpg", to: again) == 89_696)
        #expect(try cache.retrieve("https://cdn.example/other.jpg", to: dir.appendingPathComponent("x")) == nil)
        let key = MediaCache.key(for: "https://cdn.example/a.jpg")
        #expect(key.count == 64)
        #expect(FileManager.default.fileExists(atPath: cache.directory.appendingPathComponent("\(key).media").path))
    }

    @Test func noStoreIsNotStoredAndMaxAgeExpires() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = MediaCache(directory: dir.appendingPathComponent("cache"))
        let source = try file(dir, "m", bytes: 1000)
        #expect(try cache.store("https://a/no", file: source, cacheControl: "no-store") == false)
        #expect(try cache.retrieve("https://a/no", to: dir.appendingPathComponent("o1")) == nil)
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        #expect(try cache.store("https://a/short", file: source, cacheControl: "max-age=10", now: t0))
        #expect(try cache.retrieve("https://a/short", to: dir.appendingPathComponent("o2"), now: t0.addingTimeInterval(9)) == 1000)
        #expect(try cache.retrieve("https://a/short", to: dir.appendingPathComponent("o3"), now: t0.addingTimeInterval(11)) == nil)
        #expect(try cache.entries().isEmpty)
    }

    @Test func theLeastRecentlyUsedFileIsEvictedToStayWithinTheBound() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = MediaCache(directory: dir.appendingPathComponent("cache"), maximumBytes: 2_500)
        let source = try file(dir, "m", bytes: 1_000)
        let t = Date(timeIntervalSince1970: 2_000_000)
        try cache.store("https://a/1", file: source, cacheControl: nil, now: t)
        try cache.store("https://a/2", file: source, cacheControl: nil, now: t.addingTimeInterval(1))
        // Using 1 makes 2 the least recently used.
        #expect(try cache.retrieve("https://a/1", to: dir.appendingPathComponent("o"), now: t.addingTimeInterval(2)) != nil)
        try cache.store("https://a/3", file: source, cacheControl: nil, now: t.addingTimeInterval(3))
        let keys = Set(try cache.entries().map(\.key))
        #expect(keys == Set(["https://a/1", "https://a/3"].map(MediaCache.key(for:))))
        let mediaFiles = try FileManager.default.contentsOfDirectory(atPath: cache.directory.path).filter { $0.hasSuffix(".media") }
        #expect(mediaFiles.count == 2)
        // A file larger than the whole cache is not stored.
        #expect(try cache.store("https://a/big", file: try file(dir, "big", bytes: 3_000), cacheControl: nil) == false)
    }

    @Test func twoProcessesFillingTheCacheAtOnceLeaveItConsistentAndBounded() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cacheDir = dir.appendingPathComponent("cache")
        let bound = 89_696 * 5
        let results = try await DepthSupport.runConcurrently([
            ["cache-fill", cacheDir.path, String(bound), Fixtures.media("photo.jpg").path, "https://a.example/", "25"],
            ["cache-fill", cacheDir.path, String(bound), Fixtures.media("photo.jpg").path, "https://b.example/", "25"],
        ])
        #expect(results.map(\.0) == [0, 0])
        #expect(results.map { $0.1.trimmingCharacters(in: .whitespacesAndNewlines) } == ["ok 25", "ok 25"])
        let entries = try MediaCache(directory: cacheDir, maximumBytes: bound).entries()
        #expect(entries.count == 5)
        #expect(entries.reduce(0) { $0 + $1.bytes } <= bound)
        let names = try FileManager.default.contentsOfDirectory(atPath: cacheDir.path)
        for entry in entries {
            let attributes = try FileManager.default.attributesOfItem(atPath: cacheDir.appendingPathComponent("\(entry.key).media").path)
            #expect(attributes[.size] as? Int == 89_696)
        }
        #expect(names.filter { $0.hasSuffix(".media") }.count == 5)
        #expect(names.filter { $0.hasPrefix(".incoming-") || $0.hasPrefix(".tmp-") }.isEmpty)
    }
}
