import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

/// APNs' GOAWAY (sent on idle, on a bad provider token, on shutdown) through `richpush send` and
/// `richpush serve` with several connections (issue 21 item 4), against `mock_apns.py
/// --goaway-after`: after 30 answers on a connection it sends GOAWAY with streams still open,
/// answers the kept ones (at or below the last-stream-id) and drops the rest unprocessed.
/// `HTTP2Client` ends the streams above the last-stream-id `notProcessed` (RFC 9113 §6.8: the
/// server did not process them) and sends them again at once on another connection, without
/// counting an attempt; the ones at or below the last-stream-id keep their answers. So every
/// token has exactly one result, and the mock processed every token exactly once.
@Suite("GOAWAY with several connections", .serialized)
struct GoawayTests {
    /// 20 streams per connection from the start, as many as `send --concurrency 20` keeps in flight.
    static let goaway = ["--delay-ms", "50", "--max-streams", "20", "--goaway-after", "30", "--goaway-keep", "5"]

    static func tokens(_ count: Int) -> [String] {
        (0..<count).map { String(format: "%064x", 0x5000 + $0) }
    }

    /// The mock processed each token once, sent GOAWAYs that left streams unprocessed, saw one
    /// provider token and no stream beyond its limit.
    static func expectProcessedOnce(_ stats: RichPushJSONValue, _ tokens: [String], goaways: Int, context: String) {
        #expect(stats["accepted"] == .int(tokens.count), "\(context)")
        let perToken = stats["per_token"]
        let twice = tokens.filter { perToken?[$0] != .int(1) }
        #expect(twice.isEmpty, "processed other than once: \(twice.prefix(5)) \(context)")
        #expect((stats["goaways"]?.intValue ?? 0) >= goaways, "\(context)")
        #expect((stats["goaway_refused"]?.intValue ?? 0) > 0, "no stream was left unprocessed by a GOAWAY: the test shows nothing \(context)")
        #expect(stats["jwts"] == .int(1), "\(context)")
        #expect(stats["renewals"] == .int(0))
        #expect(stats["stream_limit_violations"] == .int(0), "\(context)")
    }

    @Test("send --apns-connections 2: GOAWAYs mid-batch, every token one result, each processed once, one JWT")
    func sendThroughGoaway() async throws {
        let mock = try await MockAPNs(options: Self.goaway)
        defer { mock.stop() }
        let tokens = Self.tokens(300)
        let file = mock.directory.appendingPathComponent("tokens.txt")
        try Data((tokens.joined(separator: "\n") + "\n").utf8).write(to: file)
        let run = try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "send", "--key", mock.keyFile.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic, "--apns-url", mock.baseURL,
                "--ca-file", mock.caFile.path, "--tokens", file.path, "--title", "t", "--body", "b", "--apns-connections", "2",
                "--concurrency", "20",
            ]
        ).run(timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.stdout.split(separator: "\n").map { try RichPushJSONValue.parse(Data($0.utf8)) }
        #expect(lines.count == tokens.count)
        var results: [String: Int] = [:]
        for line in lines { results[line["token"]?.stringValue ?? "", default: 0] += 1 }
        #expect(tokens.allSatisfy { results[$0] == 1 }, "a token without exactly one result")
        #expect(lines.allSatisfy { $0["outcome"] == .string("accepted") }, "\(lines.filter { $0["outcome"] != .string("accepted") }.prefix(3))")
        let stats = try await mock.stats()
        Self.expectProcessedOnce(stats, tokens, goaways: 2, context: run.stderr)
        // Two connections, and each GOAWAY'd one replaced.
        #expect((stats["device_connections"]?.intValue ?? 0) > 2, "\(stats["device_connections"] ?? .null)")
    }

    @Test("serve --apns-connections 2: POST /v1/pushes through GOAWAYs, every token one result, each processed once, one JWT")
    func serveThroughGoaway() async throws {
        // Apple's raised limit (1000): serve's up to 500 streams per connection are all in
        // flight when a GOAWAY comes, so each GOAWAY leaves many streams above its last-stream-id.
        let mock = try await MockAPNs(
            options: ["--delay-ms", "50", "--max-streams", "1000", "--goaway-after", "30", "--goaway-keep", "5", "--goaway-connections", "2"])
        defer { mock.stop() }
        let server = try await ServeProcess(mock: mock, extra: ["--apns-connections", "2"])
        defer { server.stop() }
        #expect(server.banner.contains("2 connections"), "\(server.banner)")
        let tokens = Self.tokens(200)
        let body = try JSONSerialization.data(withJSONObject: ["push_id": "goaway-1", "tokens": tokens, "title": "t", "body": "b"])
        let answer = try await server.post("/v1/pushes", body)
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let json = try RichPushJSONValue.parse(answer.body)
        #expect(json["sent"] == .int(tokens.count))
        #expect(json["accepted"] == .int(tokens.count))
        let results = json["results"]?.arrayValue ?? []
        var seen: [String: Int] = [:]
        for result in results { seen[result["token"]?.stringValue ?? "", default: 0] += 1 }
        #expect(results.count == tokens.count)
        #expect(tokens.allSatisfy { seen[$0] == 1 }, "a token without exactly one result")
        let stats = try await mock.stats()
        Self.expectProcessedOnce(stats, tokens, goaways: 2, context: server.standardError)
        // The first two connections went away; their replacements carry no GOAWAY.
        #expect((3...4).contains(stats["device_connections"]?.intValue ?? 0), "\(stats["device_connections"] ?? .null)")
        #expect(await server.terminate() == 0)
    }

    @Test("send --apns-connections 4: one JWT for all connections; an ExpiredProviderToken renews it once for all of them")
    func oneJWTRenewedOnceAcrossConnections() async throws {
        let tokens = Self.tokens(120)
        let expired = tokens[60]
        let mock = try await MockAPNs(
            script: [expired: [["status": 403, "reason": "ExpiredProviderToken"], ["status": 200]]],
            options: ["--delay-ms", "20", "--max-streams", "10"])
        defer { mock.stop() }
        let file = mock.directory.appendingPathComponent("tokens.txt")
        try Data((tokens.joined(separator: "\n") + "\n").utf8).write(to: file)
        let run = try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "send", "--key", mock.keyFile.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic, "--apns-url", mock.baseURL,
                "--ca-file", mock.caFile.path, "--tokens", file.path, "--title", "t", "--body", "b", "--apns-connections", "4",
                "--concurrency", "10",
            ]
        ).run(timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try await mock.stats()
        #expect(stats["device_connections"] == .int(4))
        #expect(stats["accepted"] == .int(tokens.count))
        // One token before the renewal, one after: not one per connection.
        #expect(stats["jwts"] == .int(2), "\(stats["jwts"] ?? .null)")
        #expect(stats["renewals"] == .int(1))
        #expect(stats["per_token"]?[expired] == .int(2))
    }

    @Test("serve --apns-connections: 1…64 with a clear message, only with the APNs settings, and in --help")
    func serveFlagIsChecked() async throws {
        let zero = try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "serve", "--port", "0", "--apns-key", "AuthKey_ABC123DEFG.p8", "--apns-team-id", MockAPNs.teamID, "--apns-topic", MockAPNs.topic,
                "--apns-connections", "0",
            ]
        ).run(timeout: 30)
        #expect(zero.status == 64)
        #expect(zero.stderr.contains("'--apns-connections 0' must be an integer from 1 to 64"), "\(zero.stderr)")
        let many = try await ChildProcess(Fixtures.richpushBinary.path, ["serve", "--port", "0", "--apns-connections", "65"]).run(timeout: 30)
        #expect(many.status == 64)
        #expect(many.stderr.contains("'--apns-connections 65' must be an integer from 1 to 64"), "\(many.stderr)")
        let alone = try await ChildProcess(Fixtures.richpushBinary.path, ["serve", "--port", "0", "--apns-connections", "2"]).run(timeout: 30)
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--apns-connections applies to APNs: give --apns-key"), "\(alone.stderr)")
        let help = try await ChildProcess(Fixtures.richpushBinary.path, ["serve", "--help"]).run(timeout: 30)
        #expect(help.stdout.contains("--apns-connections N"), "\(help.stdout)")
        #expect(help.stdout.contains("HTTP/2 connections to APNs (1…64, default 1)"))
    }
}

/// `richpush serve` on a fresh SQLite file, sending to a `MockAPNs`, spoken to over HTTP/1.1.
/// `@unchecked Sendable`: set up in `init` and only read afterwards (the child process is its own).
final class ServeProcess: @unchecked Sendable {
    static let adminToken = "goaway-test-admin-token-0123"
    let directory: URL
    let port: Int
    private let child: ChildProcess
    private let transport: CurlHTTPTransport

    init(mock: MockAPNs, extra: [String]) async throws {
        directory = try Fixtures.temporaryDirectory("serve-goaway")
        child = ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "serve", "--port", "0", "--db", directory.appendingPathComponent("receipts.sqlite").path, "--admin-token", Self.adminToken,
                "--apns-key", mock.keyFile.path, "--apns-team-id", MockAPNs.teamID, "--apns-topic", MockAPNs.topic,
                "--apns-url", mock.baseURL, "--apns-ca-file", mock.caFile.path,
            ] + extra)
        port = try await child.start(waitingForPort: 30)
        var configuration = TransportConfiguration()
        // The answer lists every token: far over the 16 KiB an APNs answer is allowed.
        configuration.maximumResponseBodyBytes = 16 << 20
        transport = try CurlHTTPTransport(configuration: configuration)
    }

    /// What `serve` printed at start.
    var banner: String { child.standardOutput }
    /// What `serve` logged.
    var standardError: String { child.standardError }

    /// POSTs a JSON body with the admin token.
    func post(_ path: String, _ body: Data) async throws -> TransportResponse {
        try await transport.send(
            TransportRequest(
                method: "POST", url: "http://127.0.0.1:\(port)\(path)",
                headers: [("authorization", "Bearer \(Self.adminToken)"), ("content-type", "application/json")], body: body))
    }

    /// SIGTERM and the exit status.
    func terminate() async -> Int32 {
        await child.terminate(grace: 20)
        return child.process.terminationStatus
    }

    /// Stops without waiting (safe in `defer`).
    func stop() {
        transport.shutdown()
        child.kill()
        try? FileManager.default.removeItem(at: directory)
    }
}
