import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// An anonymous `GET /m/` flood against an instance on PostgreSQL (issue 28; in scripts/test.sh's
/// TIMING list): each file used to be read as hex through a pooled connection with no cache, and
/// a 1-token send went from 9 ms to 6.5 s. Now hits are served from memory and misses read the
/// store one at a time, so the send keeps its pace.
@Suite("media edge: a GET /m/ flood on PostgreSQL delays no send", .serialized)
struct MediaFloodTimingTests {
    static let token = MockAPNsProcess.token("f1")

    static func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }

    @Test("16 clients flooding /m/ with 300 KB files and missing names: a 1-token send within 3× its time alone (+100 ms)")
    func flood() async throws {
        let fixture = try await StoreFixture.make(.postgres)
        let files = (0..<20).map {
            MediaObject(bytes: MediaEdgeTests.file(300_000, seed: UInt8($0)), fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 1)
        }
        let seeded = try await fixture.open()
        for object in files { _ = try await seeded.run { try $0.storeMedia(object, budgetBytes: 100_000_000) } }
        try await seeded.close()
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(dbArgument: fixture.dbArgument, extraArguments: mock.serveArguments() + MediaEdgeTests.edgeArguments)
        let admin = server.admin
        let body = try SendMediaCheckTests.json(["tokens": [Self.token], "title": "t", "body": "b", "media": "off"])
        let prober = server.client()
        func send() async throws -> Duration {
            let started = ContinuousClock.now
            let r = try await prober.postJSON("/v1/pushes", body, headers: admin)
            #expect(r.status == 200, "\(r.text)")
            return ContinuousClock.now - started
        }
        _ = try await send()
        var alone: [Duration] = []
        for _ in 0..<7 { alone.append(try await send()) }

        let stop = Locked(false)
        let served = Locked(0)
        let paths = files.map(\.path)
        let flood = (0..<16).map { k in
            Task {
                let client = server.client(from: "127.0.6.\(k + 1)")
                var i = k
                while !stop.withLock({ $0 }) {
                    // Three hits for each miss (a name no file has).
                    let path = i % 4 == 3 ? "/m/\(String(repeating: String(i % 10), count: 64)).jpg" : paths[i % paths.count]
                    if let r = try? await client.request("GET", path), r.status == 200 { served.withLock { $0 += 1 } }
                    i += 1
                }
            }
        }
        // The flood is under way once files are being served.
        for _ in 0..<300 where served.withLock({ $0 }) < 50 { try await Task.sleep(for: .milliseconds(100)) }
        #expect(served.withLock { $0 } >= 50, "the flood never got going")
        var loaded: [Duration] = []
        for _ in 0..<7 { loaded.append(try await send()) }
        stop.withLock { $0 = true }
        for task in flood { await task.value }
        let (a, l) = (Self.median(alone), Self.median(loaded))
        #expect(l <= a * 3 + .milliseconds(100), "a 1-token send: \(a) alone, \(l) during the flood (\(served.withLock { $0 }) files served)")
        #expect(await server.terminate() == 0)
    }
}
