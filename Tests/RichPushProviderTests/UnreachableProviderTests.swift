import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port that takes connections (the kernel completes the handshake) and never
/// answers: a blackholed provider. Closed when released.
/// `@unchecked Sendable`: the port and the socket are set in `init` and never changed.
final class BlackholeListener: @unchecked Sendable {
    let port: Int
    private let fd: Int32

    init() throws {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw TestSupportError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socketFD, 128) == 0 else {
            close(socketFD)
            throw TestSupportError("bind/listen failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) } }
        fd = socketFD
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}

/// APNs (or FCM) unreachable: the same exit status and the same stop whatever the number of
/// tokens, and the tokens that were never sent are `not_sent`.
@Suite struct UnreachableProviderTests {
    let tokens = (1...20).map { String(format: "%064x", $0) }

    /// A port nothing listens on: every connection is refused.
    static func refusedPort() throws -> Int {
        let listener = try BlackholeListener()
        return listener.port  // closed when `listener` goes away, below
    }

    func send(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = dir.appendingPathComponent("AuthKey_\(MockAPNs.keyID).p8")
        try await MockAPNs.makeKey(at: key)
        return try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "send", "--key", key.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic, "--title", "t", "--body", "b",
            ] + arguments
        ).run(timeout: 120)
    }

    func lines(_ stdout: String) throws -> [RichPushJSONValue] {
        try stdout.split(separator: "\n").map { try RichPushJSONValue.parse(Data($0.utf8)) }
    }

    @Test func oneTokenOrTwentyTheRefusedHostExitsOne() async throws {
        let port = try Self.refusedPort()
        let one = try await send(["--apns-url", "https://127.0.0.1:\(port)", "--max-attempts", "2", "--token", tokens[0]])
        #expect(one.status == 1, "\(one.stderr)")
        #expect(one.stderr.contains("no answer from https://127.0.0.1:\(port): 1 token sent, none answered after 2 attempts each"), "\(one.stderr)")
        #expect(try lines(one.stdout).map { $0["outcome"] } == [.string("retries_exhausted")])

        let twenty = try await send(["--apns-url", "https://127.0.0.1:\(port)", "--max-attempts", "2"] + tokens.flatMap { ["--token", $0] })
        #expect(twenty.status == 1, "\(twenty.stderr)")
        #expect(twenty.stderr.contains("gave up the batch: 5 tokens in a row got no answer"), "\(twenty.stderr)")
        // All 20 went out in the first window (--concurrency 500): each ends retries_exhausted.
        let results = try lines(twenty.stdout)
        #expect(results.count == 20)
        #expect(results.allSatisfy { $0["outcome"] == .string("retries_exhausted") && $0["status"] == .null })
    }

    /// With a window of one token, the tokens after the fifth without an answer are never sent.
    @Test func pastTheTokensOnTheirWayTheRestAreNotSent() async throws {
        let port = try Self.refusedPort()
        let run = try await send(
            ["--apns-url", "https://127.0.0.1:\(port)", "--max-attempts", "1", "--concurrency", "1"] + tokens.flatMap { ["--token", $0] })
        #expect(run.status == 1)
        let results = try lines(run.stdout)
        #expect(results.count == 20)
        let exhausted = results.filter { $0["outcome"] == .string("retries_exhausted") }.count
        let notSent = results.filter { $0["outcome"] == .string("not_sent") }.count
        #expect(exhausted >= 5 && exhausted <= 8, "\(exhausted) exhausted")  // 5, plus at most the 3 windows on their way
        #expect(exhausted + notSent == 20)
        #expect(run.stderr.contains("retries_exhausted \(exhausted)") && run.stderr.contains("not_sent \(notSent)"), "\(run.stderr)")
    }

    /// docs/sending.md: with the default --concurrency 500, 3,000 tokens to an unreachable host end 1,500
    /// retries_exhausted (three windows were on their way) and 1,500 not_sent, exit 1.
    @Test func threeThousandTokensEndHalfExhaustedHalfNotSent() async throws {
        let port = try Self.refusedPort()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("tokens.txt")
        try Data((1...3_000).map { String(format: "%064x", $0) + "\n" }.joined().utf8).write(to: file)
        let run = try await send(["--apns-url", "https://127.0.0.1:\(port)", "--max-attempts", "1", "--tokens", file.path])
        #expect(run.status == 1, "\(run.stderr)")
        let results = try lines(run.stdout)
        #expect(results.count == 3_000)
        #expect(results.filter { $0["outcome"] == .string("retries_exhausted") }.count == 1_500)
        #expect(results.filter { $0["outcome"] == .string("not_sent") }.count == 1_500)
        #expect(run.stderr.contains("gave up the batch: "), "\(run.stderr)")
    }

    /// A blackhole (connections taken, never answered, not even the server's SETTINGS), through
    /// the real HTTP/2 client with a 1 s request timeout: one token stops the batch as twenty do.
    /// A request written and never answered ends `unknown` (the host may have it; without a
    /// collapse id it is not sent again); only one request per connection is ever written before
    /// the server's SETTINGS arrive.
    @Test func aBlackholedHostStopsTheBatchWhateverTheTokenCount() async throws {
        let listener = try BlackholeListener()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = dir.appendingPathComponent("AuthKey_\(MockAPNs.keyID).p8")
        try await MockAPNs.makeKey(at: key)
        let signer = try ES256Signer(contentsOf: key)
        var transport = TransportConfiguration()
        transport.connectTimeout = 1
        transport.requestTimeout = 1
        transport.maxConcurrentStreams = 1
        func client() throws -> APNsClient {
            try APNsClient(
                environment: .custom("http://127.0.0.1:\(listener.port)"),
                authentication: .token(APNsTokenManager(signer: signer, keyID: MockAPNs.keyID, teamID: MockAPNs.teamID)),
                transport: transport, retry: APNsRetryPolicy(maxAttempts: 1, baseDelay: 0, maxDelay: 0))
        }
        let single = try client()
        defer { single.shutdown() }
        let one = try await single.send(MockAPNs.notification(), to: [tokens[0]])
        #expect(one.results.map(\.outcome) == [.unknown])
        #expect(one.stoppedBy?.code == .connectionFailed)
        #expect(one.stoppedBy?.message.contains("no answer from http://127.0.0.1:\(listener.port): 1 token sent") == true, "\(one.stoppedBy?.message ?? "")")

        let many = try client()
        defer { many.shutdown() }
        let twenty = try await many.send(MockAPNs.notification(), to: tokens)
        #expect(twenty.stoppedBy?.message.contains("gave up the batch") == true, "\(twenty.stoppedBy?.message ?? "")")
        #expect(twenty.results.count == 20)
        // The one request written (one stream until the server's SETTINGS, which never come)
        // ends unknown at its timeout (1 s); the requests waiting behind it fail at once, never
        // sent (retries_exhausted with --max-attempts 1), and so does every request for the next
        // second (the host is silent); after that one request may be written again, and the
        // batch gives up once the host has answered nothing for 5 s: at most 3 written, each
        // unknown, the rest never sent.
        let unknown = twenty.results.filter { $0.outcome == .unknown }.count
        #expect((1...3).contains(unknown), "\(twenty.countsByOutcome)")
        #expect(twenty.results.filter { $0.outcome == .retriesExhausted }.count >= 4, "\(twenty.countsByOutcome)")
        #expect(twenty.results.filter { $0.outcome == .notSent }.count >= 10)
        #expect(twenty.results.allSatisfy { [.unknown, .retriesExhausted, .notSent].contains($0.outcome) })
    }

    @Test func tokensThatGotAnswersKeepExitTwoForTheOnesThatDidNot() async throws {
        // The first token answered 200, then the host went away for the next two: not
        // unreachable (it answered), some tokens not accepted.
        let transport = ScriptedTransport(answers: [200])
        let client = APNsClient(
            environment: .custom("https://127.0.0.1:9"), authentication: .certificate(.init(certificateFile: "unused.pem")),
            httpTransport: transport, retry: APNsRetryPolicy(maxAttempts: 2, baseDelay: 0, maxDelay: 0), batchWindow: 1)
        let batch = try await client.send(MockAPNs.notification(), to: Array(tokens.prefix(3)))
        #expect(batch.results.map(\.outcome) == [.accepted, .retriesExhausted, .retriesExhausted])
        #expect(batch.stoppedBy == nil)
    }

    @Test(
        "usage errors before anything is sent, --dry-run included",
        arguments: [
            (["--concurrency", "0", "--dry-run"], "'--concurrency 0' must be an integer from 1 to 1000"),
            (["--max-attempts", "0", "--dry-run"], "'--max-attempts 0' must be an integer from 1 to 10"),
            (
                ["--sandbox", "--apns-url", "https://127.0.0.1:1", "--dry-run"],
                "give either '--sandbox' (Apple's sandbox) or '--apns-url URL' (another endpoint), not both"
            ),
            (["--sandbox", "--apns-url", "https://127.0.0.1:1"], "give either '--sandbox'"),
        ])
    func usage(_ arguments: [String], _ message: String) async throws {
        let run = try await send(arguments + ["--token", tokens[0]])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }
}

/// Answers the first requests with the given statuses, then fails every later one as a refused
/// connection would.
/// `@unchecked Sendable`: the answers left are taken under `lock` only.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Int]
    init(answers: [Int]) { self.answers = answers }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let status: Int? = lock.withLock { answers.isEmpty ? nil : answers.removeFirst() }
        guard let status else { throw RichPushError(code: .connectionFailed, message: "Couldn't connect to server (curl 7)") }
        return TransportResponse(status: status, headers: [:], body: Data())
    }
    var connectionsOpened: Int { 1 }
    func shutdown() {}
}
