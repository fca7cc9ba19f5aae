import Foundation
import RichPushMedia
import RichPushTestSupport

@testable import RichPushServer

/// The statistics server without a socket or a process (as Hummingbird's `.router` test mode):
/// each request goes through the same admission, body bound and endpoints as over HTTP
/// (`StatisticsServer.handle`), on a new SQLite file or a store the test gives. For what only a
/// socket or a process shows (framing on the wire, slow clients, signals, kill -9), use
/// `ServerProcess`.
final class InProcessServer: Sendable {
    static let token = ServerProcess.token
    let server: StatisticsServer
    private let directory: URL

    /// Starts the writer on a new SQLite file (or `store`), with the admin token `token`.
    ///
    /// - Parameters:
    ///   - store: the store; `nil` for a new SQLite file.
    ///   - configure: changes to the configuration.
    init(
        store: (any ReceiptStore & StatisticsStore)? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        directory = try Fixtures.temporaryDirectory("richpush-inprocess")
        var configuration = ServerConfiguration(adminToken: Self.token)
        // The media workers are the built `richpush` (this process is the test runner).
        configuration.mediaCheck.workers.command = [Fixtures.richpushBinary.path, MediaWorker.argument]
        configure(&configuration)
        let store = try store ?? SQLiteStore(path: directory.appendingPathComponent("receipts.sqlite").path)
        server = try StatisticsServer(configuration: configuration, store: store, listening: false)
    }

    /// A client with `HTTPTestClient`'s calls (throwing like them), answered in process.
    ///
    /// - Parameter source: the client's address (another loopback address is another client
    ///   for the server); default `127.0.0.1`.
    func client(from source: String? = nil) -> Client { Client(server: server, peer: source ?? "127.0.0.1") }

    /// The dashboard's own origin, as a browser on it sends in `Origin` (the requests' `Host` is
    /// `127.0.0.1`).
    var origin: String { "http://127.0.0.1" }

    var admin: [String: String] { ["Authorization": "Bearer \(Self.token)"] }

    /// The figures for one push (admin API).
    func push(_ id: String) async throws -> [String: Any] {
        let r = try await client().request("GET", "/v1/pushes/\(id)", headers: admin)
        guard r.status == 200 else { throw HTTPTestClient.HTTPTestError("GET push \(id): \(r.status) \(r.text)") }
        return try r.json()
    }

    /// Graceful shutdown: stops the background services, commits what is queued and closes the store.
    func shutdown() async throws { try await server.shutdown() }

    deinit {
        // A test that did not shut it down: in the background (a deinit cannot await), then the
        // file goes.
        let server = self.server, directory = self.directory
        Task.detached {
            try? await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// `HTTPTestClient`'s requests, as `ServerRequest`s handed to the server.
    struct Client: Sendable {
        let server: StatisticsServer
        /// The client's address.
        var peer = "127.0.0.1"

        func request(_ method: String, _ target: String, headers: [String: String] = [:], body: Data = Data()) async throws -> HTTPTestClient.Response {
            var lines = [(name: "Host", value: "127.0.0.1")] + headers.map { (name: $0.key, value: $0.value) }
            if !body.isEmpty || method == "POST" { lines.append((name: "Content-Length", value: String(body.count))) }
            // The target as a client sends it, read as the HTTP layer reads it.
            let request = ServerRequest(method: method, target: target, headers: lines, body: body, peer: peer)
            let response = await server.handle(request)
            var answered: [String: String] = [:]
            for header in response.headers { answered[header.name.lowercased()] = header.value }
            let body = response.file?.readAll() ?? response.body
            if let type = response.contentType, !body.isEmpty { answered["content-type"] = type }
            return HTTPTestClient.Response(status: response.status, headers: answered, body: body)
        }

        func post(_ path: String, form: String, headers: [String: String] = [:]) async throws -> HTTPTestClient.Response {
            var h = headers
            h["Content-Type"] = h["Content-Type"] ?? "application/x-www-form-urlencoded"
            return try await request("POST", path, headers: h, body: Data(form.utf8))
        }

        func postJSON(_ path: String, _ json: String, headers: [String: String] = [:]) async throws -> HTTPTestClient.Response {
            var h = headers
            h["Content-Type"] = "application/json"
            return try await request("POST", path, headers: h, body: Data(json.utf8))
        }
    }
}
