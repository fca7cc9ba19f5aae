import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `richpush serve` with the media edge against the files that took it down (issue 28): a
/// decoder that aborts ends a media worker, never the server; the push is refused with the
/// reason and its `Idempotency-Key` is free again at once.
@Suite("richpush serve: media conversions in worker processes", .serialized)
struct MediaWorkerServeTests {
    static let token = MockAPNsProcess.token("e2")

    /// A file of the media server's folder, written now (never committed).
    static func serve(_ data: Data, as name: String, in files: SendMediaFiles) throws -> String {
        try data.write(to: files.folder.appendingPathComponent(name))
        return files.url("f/\(name)")
    }

    static func push(_ server: ServerProcess, id: String, image: String, key: String? = nil) async throws -> HTTPTestClient.Response {
        let body = try SendMediaCheckTests.json(["push_id": id, "tokens": [Self.token], "title": "t", "image": image])
        var headers = server.admin
        if let key { headers["Idempotency-Key"] = key }
        return try await server.client().postJSON("/v1/pushes", body, headers: headers)
    }

    static func edge(port: Int) -> [String] {
        ["--port", "\(port)", "--media-public-url", "https://127.0.0.1:\(port)", "--media-store-bytes", "10000000"]
    }

    @Test("the 1.5 KB SVG that aborted richpush serve: 422 corrupt_media with librsvg's panic, the server answering, the key free, the next push optimised")
    func crashingSVG() async throws {
        let files = try await SendMediaFiles.shared()
        let crash = try Self.serve(HostileMedia.convolveSVG(), as: "crash-\(UUID().uuidString).svg", in: files)
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let reservation = try PortReservation()
        defer { withExtendedLifetime(reservation) {} }
        let server = try await ServerProcess(
            extraArguments: mock.serveArguments() + SendMediaCheckTests.localMedia(files) + Self.edge(port: reservation.port) + ["--allow-svg"])
        let workersBefore = server.mediaWorkers
        #expect(workersBefore.count == 2, "the workers start with the server: \(workersBefore)")

        for attempt in 0..<2 {
            // The same Idempotency-Key twice: the refusal is not kept, and no claim is left
            // behind (before: the server died holding it, and the retry got 409 in_progress).
            let r = try await Self.push(server, id: "crash", image: crash, key: "crash-key")
            #expect(r.status == 422, "attempt \(attempt): \(r.status) \(r.text)")
            let message = try SendMediaCheckTests.error(r)["message"] as? String ?? ""
            #expect(message.contains("(corrupt_media: no push-ready copy can be made: the decoder crashed on this file"), "\(message)")
            #expect(message.contains("panicked"), "\(message)")
            let health = try await server.client().request("GET", "/healthz")
            #expect(health.status == 200)
        }
        #expect(try await SendMediaCheckTests.delivered(mock).requests == 0)
        // The next conversion is done by a new worker.
        let webp = try await Self.push(server, id: "after-crash", image: files.url("f/photo.webp"))
        #expect(webp.status == 200, "\(webp.text)")
        #expect(try SendMediaCheckTests.media(webp).first?["action"] as? String == "optimized")
        let metrics = try await server.client().request("GET", "/metrics")
        #expect(metrics.text.contains("richpush_media_conversions_total{result=\"died\"} 2"), "\(metrics.text)")
        #expect(metrics.text.contains("richpush_media_workers_started_total 4") || metrics.text.contains("richpush_media_workers_started_total 3"))
        #expect(await server.terminate() == 0)
        let store = try SQLiteStore(path: server.database.path)
        defer { try? store.close() }
        #expect(try store.pushMedia("crash").first?.reason == "corrupt_media")
    }

    @Test("SVG is off by default: 422 unsupported_format saying how to allow it, no worker touched")
    func svgOff() async throws {
        let files = try await SendMediaFiles.shared()
        let crash = try Self.serve(HostileMedia.convolveSVG(), as: "crash-off-\(UUID().uuidString).svg", in: files)
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let reservation = try PortReservation()
        defer { withExtendedLifetime(reservation) {} }
        let server = try await ServerProcess(
            extraArguments: mock.serveArguments() + SendMediaCheckTests.localMedia(files) + Self.edge(port: reservation.port))
        let workers = server.mediaWorkers
        let r = try await Self.push(server, id: "svg-off", image: crash)
        #expect(r.status == 422, "\(r.text)")
        let message = try SendMediaCheckTests.error(r)["message"] as? String ?? ""
        #expect(message.contains("(unsupported_format: no push-ready copy can be made: SVG is rasterised only when allowed"), "\(message)")
        #expect(server.mediaWorkers == workers, "a worker was replaced")
        #expect(await server.terminate() == 0)
    }

    @Test("a server whose media workers cannot start refuses to start, naming them; --media-workers 0 is a usage error")
    func workersMustStart() async throws {
        #expect {
            _ = try InProcessServer {
                $0.mediaEdge = try? MediaEdgeSettings(publicURL: "https://push.example.com", storeBytes: 10_000_000, allowHTTP: false)
                $0.mediaCheck.workers.command = ["/nonexistent/richpush", "__media-worker"]
            }
        } throws: { error in
            let message = (error as? RichPushError)?.message ?? "\(error)"
            return message.contains(
                "the media edge's workers cannot start: the media worker /nonexistent/richpush could not be started: No such file or directory")
        }
        let directory = try Fixtures.temporaryDirectory("workers-start")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "serve", "--port", "0", "--db", directory.appendingPathComponent("r.sqlite").path, "--admin-token", ServerProcess.token,
                "--public-url", "https://push.example.com", "--media-store-bytes", "10000000", "--media-workers", "0",
            ]
        ).run(timeout: 60)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("'--media-workers 0' must be an integer from 1 to 64"), "\(run.stderr)")
    }
}
