import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The media edge (issue 19, item 3): files stored content-addressed in the store, served at
/// `/m/<sha256>.<ext>` with ETag/304, one byte range (206, 416), HEAD; bounded, oldest
/// unreferenced first, never a referenced one; the same bytes from every instance on one database.
@Suite("media edge: /m/<sha256>.<ext>, the bounded store")
struct MediaEdgeTests {
    /// A JPEG-looking file of `count` bytes whose content depends on `seed`.
    static func file(_ count: Int, seed: UInt8) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        for i in 0..<count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ Int(seed)) }
        bytes[0] = 0xFF
        bytes[1] = 0xD8
        return Data(bytes)
    }

    static let edgeArguments = ["--public-url", "http://127.0.0.1", "--media-store-bytes", "10000000", "--media-edge-allow-http"]

    static func edge(_ configuration: inout ServerConfiguration) {
        configuration.mediaEdge = try? MediaEdgeSettings(publicURL: "https://push.example.com", storeBytes: 10_000_000, allowHTTP: false)
    }

    @Test("GET answers the bytes with type, length, ETag and an immutable Cache-Control; If-None-Match is 304; a wrong name is 404")
    func getAndConditional() async throws {
        let server = try InProcessServer(configure: Self.edge)
        let bytes = Self.file(5_000, seed: 1)
        let object = MediaObject(bytes: bytes, fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 1)
        #expect(try server.server.store.storeMedia(object, budgetBytes: 10_000_000) == .stored(evicted: []))
        let client = server.client()
        let r = try await client.request("GET", object.path)
        #expect(r.status == 200)
        #expect(r.body == bytes)
        #expect(r.headers["content-type"] == "image/jpeg")
        #expect(r.headers["etag"] == "\"\(object.sha256)\"")
        #expect(r.headers["cache-control"] == "public, max-age=31536000, immutable")
        #expect(r.headers["accept-ranges"] == "bytes")
        #expect(object.sha256.count == 64)

        let cached = try await client.request("GET", object.path, headers: ["If-None-Match": "\"\(object.sha256)\""])
        #expect(cached.status == 304)
        #expect(cached.body.isEmpty)
        #expect(cached.headers["etag"] == "\"\(object.sha256)\"")
        let other = try await client.request("GET", object.path, headers: ["If-None-Match": "\"0000\""])
        #expect(other.status == 200)

        #expect(try await client.request("GET", "/m/\(object.sha256).png").status == 404)
        #expect(try await client.request("GET", "/m/\(String(repeating: "a", count: 64)).jpg").status == 404)
        #expect(try await client.request("GET", "/m/../etc/passwd").status == 404)
        #expect(try await client.request("GET", "/m/\(object.sha256.uppercased()).jpg").status == 404)
    }

    @Test("one byte range is 206 with Content-Range; a range past the end is 416; several ranges get the whole file")
    func ranges() async throws {
        let server = try InProcessServer(configure: Self.edge)
        let bytes = Self.file(1_000, seed: 2)
        let object = MediaObject(bytes: bytes, fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 1)
        _ = try server.server.store.storeMedia(object, budgetBytes: 10_000_000)
        let client = server.client()
        let part = try await client.request("GET", object.path, headers: ["Range": "bytes=100-199"])
        #expect(part.status == 206)
        #expect(part.body == bytes.subdata(in: 100..<200))
        #expect(part.headers["content-range"] == "bytes 100-199/1000")
        let tail = try await client.request("GET", object.path, headers: ["Range": "bytes=-10"])
        #expect(tail.status == 206)
        #expect(tail.body == bytes.subdata(in: 990..<1000))
        let open = try await client.request("GET", object.path, headers: ["Range": "bytes=995-"])
        #expect(open.body == bytes.subdata(in: 995..<1000))
        #expect(open.headers["content-range"] == "bytes 995-999/1000")
        let beyond = try await client.request("GET", object.path, headers: ["Range": "bytes=1000-1100"])
        #expect(beyond.status == 416)
        #expect(beyond.headers["content-range"] == "bytes */1000")
        let several = try await client.request("GET", object.path, headers: ["Range": "bytes=0-1,5-6"])
        #expect(several.status == 200)
        #expect(several.body == bytes)
        let stale = try await client.request("GET", object.path, headers: ["Range": "bytes=0-9", "If-Range": "\"other\""])
        #expect(stale.status == 200)
        // Hostile ranges: past Int, reversed, another unit, no digits: the whole file, never a crash.
        for hostile in ["bytes=99999999999999999999999-", "bytes=5-2", "items=0-1", "bytes=-", "bytes=a-b", "bytes=--5", "bytes=-0"] {
            let r = try await client.request("GET", object.path, headers: ["Range": hostile])
            #expect(r.status == (hostile == "bytes=-0" ? 416 : 200), "\(hostile)")
            #expect(r.status == 416 || r.body == bytes, "\(hostile)")
        }
    }

    @Test("without the edge there is no /m/ route")
    func offWithoutEdge() async throws {
        let server = try InProcessServer()
        let object = MediaObject(bytes: Self.file(100, seed: 3), fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 1)
        _ = try server.server.store.storeMedia(object, budgetBytes: 10_000_000)
        #expect(try await server.client().request("GET", object.path).status == 404)
    }

    @Test("store full: the oldest unreferenced file is evicted, never one a recorded send names", arguments: StoreBackend.allCases)
    func eviction(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        let a = MediaObject(bytes: Self.file(400, seed: 10), fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 1)
        let b = MediaObject(bytes: Self.file(400, seed: 11), fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 2)
        let c = MediaObject(bytes: Self.file(400, seed: 12), fileExtension: "png", contentType: "image/png", storedAtMs: 3)
        let d = MediaObject(bytes: Self.file(400, seed: 13), fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 4)
        for object in [a, b, c] { #expect(try await store.run { try $0.storeMedia(object, budgetBytes: 1_200) } == .stored(evicted: [])) }
        // a is the oldest, but a recorded send names it.
        try await store.run {
            try $0.recordMedia(
                PushMediaRecord(
                    pushID: "p1", originalURL: "https://img.example.com/a.webp", reason: nil, action: "optimized", originalType: "org.webmproject.webp",
                    originalBytes: 9_000, sha256: a.sha256, optimizedType: "image/jpeg", optimizedBytes: 400, sentURL: "https://e/m/x", recordedAtMs: 5))
        }
        #expect(try await store.run { try $0.storeMedia(d, budgetBytes: 1_200) } == .stored(evicted: [b.sha256]))
        #expect(try await store.run { try $0.media(a.sha256) }?.bytes == a.bytes)
        #expect(try await store.run { try $0.media(b.sha256) } == nil)
        #expect(try await store.run { try $0.media(c.sha256) }?.contentType == "image/png")
        #expect(try await store.run { try $0.media(d.sha256) }?.bytes == d.bytes)
        let usage = try await store.run { try $0.mediaUsage() }
        #expect(usage.bytes == 1_200 && usage.files == 3)
        // The same bytes again: stored once.
        #expect(try await store.run { try $0.storeMedia(d, budgetBytes: 1_200) } == .stored(evicted: []))
        // Reference everything: a new file finds no room and nothing referenced goes.
        for (i, object) in [c, d].enumerated() {
            try await store.run {
                try $0.recordMedia(
                    PushMediaRecord(
                        pushID: "p\(i + 2)", originalURL: "https://x/\(i)", reason: nil, action: "optimized", sha256: object.sha256, recordedAtMs: 6))
            }
        }
        let e = MediaObject(bytes: Self.file(400, seed: 14), fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 7)
        #expect(try await store.run { try $0.storeMedia(e, budgetBytes: 1_200) } == .full(referencedBytes: 1_200))
        #expect(try await store.run { try $0.media(e.sha256) } == nil)
        for object in [a, c, d] { #expect(try await store.run { try $0.media(object.sha256) }?.bytes == object.bytes) }
        let records = try await store.run { try $0.pushMedia("p1") }
        #expect(records.count == 1 && records.first?.originalURL == "https://img.example.com/a.webp" && records.first?.originalBytes == 9_000)
        try await store.close()
    }

    @Test("HEAD over HTTP: the headers and Content-Length, no body")
    func headOverHTTP() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("edge.sqlite")
        let object = MediaObject(bytes: Self.file(3_000, seed: 4), fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 1)
        let seeded = try await TestStore.open { try SQLiteStore(path: path.path) }
        _ = try await seeded.run { try $0.storeMedia(object, budgetBytes: 10_000_000) }
        try await seeded.close()
        let server = try await ServerProcess(database: path, extraArguments: Self.edgeArguments)
        let client = server.client()
        let head = try await client.request("HEAD", object.path)
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "3000")
        #expect(head.headers["etag"] == "\"\(object.sha256)\"")
        #expect(head.headers["content-type"] == "image/jpeg")
        #expect(head.body.isEmpty)
        let part = try await client.request("GET", object.path, headers: ["Range": "bytes=0-9"])
        #expect(part.status == 206 && part.headers["content-length"] == "10" && part.body == object.bytes.prefix(10))
        #expect(await server.terminate() == 0)
    }

    @Test("two serve instances on one PostgreSQL serve the same bytes")
    func twoInstances() async throws {
        let fixture = try await StoreFixture.make(.postgres)
        let store = try await fixture.open()
        let object = MediaObject(bytes: Self.file(20_000, seed: 5), fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 1)
        _ = try await store.run { try $0.storeMedia(object, budgetBytes: 10_000_000) }
        try await store.close()
        let instances = try await MultiInstanceTests.startInstances(2, url: fixture.dbArgument, extraArguments: Self.edgeArguments)
        for instance in instances {
            let r = try await instance.client().request("GET", object.path)
            #expect(r.status == 200)
            #expect(r.body == object.bytes)
            #expect(r.headers["etag"] == "\"\(object.sha256)\"")
        }
        for instance in instances { #expect(await instance.terminate() == 0) }
    }

    @Test("serve refuses the edge on an http public URL (exit 64 naming the fix) and without a public URL")
    func httpRefused() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("r.sqlite").path
        let http = try await ChildProcess(
            Fixtures.richpushBinary.path,
            ["serve", "--port", "0", "--db", db, "--public-url", "http://stats.example.com", "--media-store-bytes", "10000000"]
        ).run(timeout: 30)
        #expect(http.status == 64)
        #expect(http.stderr.contains("needs an https --public-url"))
        #expect(http.stderr.contains("--media-edge-allow-http"))
        let none = try await ChildProcess(Fixtures.richpushBinary.path, ["serve", "--port", "0", "--db", db, "--media-store-bytes", "10000000"])
            .run(timeout: 30)
        #expect(none.status == 64)
        #expect(none.stderr.contains("needs --public-url https://HOST"))
    }
}
