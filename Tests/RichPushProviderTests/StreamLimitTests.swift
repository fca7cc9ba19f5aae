import Foundation
import RichPushCore
import RichPushProvider
import Testing

/// Apple's APNs opens a connection with `SETTINGS_MAX_CONCURRENT_STREAMS = 1` and raises it
/// after the first answer (issue 22, item 3); an APNs may also accept streams and never answer
/// (item 4). The HTTP/2 client must follow the limit as it changes on the one connection it was
/// told to use, and give up on a silent host within about one request timeout: the requests in
/// flight end unknown, the ones waiting fail at once, unsent.
@Suite("HTTP/2 stream limits and a silent APNs", .serialized)
struct StreamLimitTests {
    struct Run {
        var seconds: Double
        var statuses: [Int: Int]
        var failures: [String]
        var connections: Int
        var stats: RichPushJSONValue
        /// The mock's counters without the per-token map, for messages.
        var summary: String {
            ["connections", "device_connections", "requests", "max_concurrent_streams", "stream_limit_violations"].map { "\($0)=\(stats[$0]?.intValue ?? -1)" }
                .joined(separator: " ")
        }
    }

    /// Sends `count` notifications to distinct tokens as one transport batch.
    static func send(_ count: Int, to mock: MockAPNs, configure: (inout TransportConfiguration) -> Void = { _ in }) async throws -> Run {
        var configuration = TransportConfiguration()
        configuration.caFile = mock.caFile.path
        configure(&configuration)
        let transport = try HTTP2Client(configuration: configuration)
        let jwt = try await mock.tokenManager().token().jwt
        let body = MockAPNs.notification().payload
        let requests = (0..<count).map { i in
            TransportRequest(
                method: "POST", url: mock.baseURL + "/3/device/" + String(format: "%064x", i),
                headers: [("apns-topic", MockAPNs.topic), ("apns-push-type", "alert"), ("authorization", "bearer " + jwt)], body: body)
        }
        let started = ContinuousClock.now
        let results = await transport.send(batch: requests)
        let elapsed = ContinuousClock.now - started
        let connections = transport.connectionsOpened
        await transport.close()
        var statuses: [Int: Int] = [:]
        var failures: [String] = []
        for result in results {
            switch result {
            case .success(let response): statuses[response.status, default: 0] += 1
            case .failure(let error): failures.append("\(error)")
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Run(seconds: seconds, statuses: statuses, failures: failures, connections: connections, stats: try await mock.stats())
    }

    @Test("1,000 tokens against a start-at-1 APNs take about as long as with the limit high from the start, every time, on one connection")
    func startAtOneLikeApple() async throws {
        let count = 1_000
        for round in 1...3 {
            // Reference: the same mock with SETTINGS_MAX_CONCURRENT_STREAMS = 1000 from the start.
            let reference = try await MockAPNs(options: ["--max-streams", "1000"])
            defer { reference.stop() }
            let high = try await Self.send(count, to: reference)
            #expect(high.statuses == [200: count], "round \(round), reference: \(high.failures.prefix(3))")

            let apple = try await MockAPNs(options: ["--initial-streams", "1", "--max-streams", "1000"])
            defer { apple.stop() }
            let run = try await Self.send(count, to: apple)
            #expect(run.statuses == [200: count], "round \(round): \(run.failures.count) failed, e.g. \(run.failures.prefix(3))")
            #expect(run.connections == 1, "round \(round): \(run.connections) connections")
            #expect(run.stats["device_connections"]?.intValue == 1, "round \(round): \(run.summary)")
            #expect(run.stats["stream_limit_violations"]?.intValue == 0)
            #expect(run.stats["requests"]?.intValue == count)
            // Multiplexed once the limit rose, not one stream at a time.
            #expect((run.stats["max_concurrent_streams"]?.intValue ?? 0) > 10, "\(run.summary)")
            // A generous factor over the same round's reference (a few seconds on a loaded
            // machine); the bug made it the 30 s request timeout.
            print("stream limit round \(round): start-at-1 \(run.seconds) s, from-the-start \(high.seconds) s, \(run.connections) connection(s)")
            #expect(run.seconds <= max(high.seconds * 4, high.seconds + 2), "round \(round): \(run.seconds) s vs \(high.seconds) s")
        }
    }

    @Test("a limit lower than the transport's own: never more streams than the server allows, never a second connection")
    func lowServerLimit() async throws {
        let mock = try await MockAPNs(options: ["--initial-streams", "1", "--max-streams", "8"])
        defer { mock.stop() }
        let run = try await Self.send(300, to: mock)
        #expect(run.statuses == [200: 300], "\(run.failures.prefix(3))")
        #expect(run.stats["stream_limit_violations"]?.intValue == 0)
        #expect(run.stats["device_connections"]?.intValue == 1, "\(run.summary)")
        #expect(run.connections == 1)
        #expect((run.stats["max_concurrent_streams"]?.intValue ?? 0) <= 8)
    }

    @Test("an APNs that accepts streams and never answers: every request fails within about two request timeouts")
    func neverAnswers() async throws {
        let mock = try await MockAPNs(options: ["--never-answer"])
        defer { mock.stop() }
        let timeout = 3.0
        let run = try await Self.send(40, to: mock) {
            $0.requestTimeout = timeout
            $0.maxConcurrentStreams = 5
        }
        #expect(run.statuses.isEmpty)
        #expect(run.failures.count == 40)
        #expect(run.seconds < timeout * 2 + 1, "\(run.seconds) s for 40 requests, 5 at a time, \(timeout) s request timeout")
        // The 5 written: no answer in time, unknown. The 35 waiting: failed at once, never sent.
        #expect(run.failures.filter { $0.contains("no answer within 3 s") }.count == 5, "\(run.failures.prefix(2))")
        #expect(run.failures.filter { $0.contains("answered none of them") }.count == 35, "\(run.failures.suffix(2))")
        #expect(run.stats["requests"]?.intValue == 5)
    }

    @Test("a batch through APNsClient against an APNs that never answers ends within about two request timeouts")
    func neverAnsweringAPNsBatch() async throws {
        let mock = try await MockAPNs(options: ["--never-answer"])
        defer { mock.stop() }
        let timeout = 3.0
        var configuration = TransportConfiguration()
        configuration.caFile = mock.caFile.path
        configuration.requestTimeout = timeout
        configuration.maxConcurrentStreams = 5
        let transport = try HTTP2Client(configuration: configuration)
        let client = APNsClient(
            environment: .custom(mock.baseURL), authentication: .token(try mock.tokenManager()), httpTransport: transport,
            retry: APNsRetryPolicy(maxAttempts: 4, baseDelay: 0.05, maxDelay: 0.2))
        let tokens = (0..<20).map { MockAPNs.token(String(format: "%02x", $0)) }
        let started = ContinuousClock.now
        let batch = try await client.send(MockAPNs.notification(), to: tokens)
        let elapsed = ContinuousClock.now - started
        await transport.close()
        #expect(batch.results.count == 20)
        #expect(batch.accepted == 0)
        #expect(batch.results.allSatisfy { $0.status == nil })
        #expect(elapsed < .seconds(timeout * 2 + 1), "\(elapsed) for 20 tokens, 5 streams, \(timeout) s request timeout")
        // One request went out; the rest were given up without waiting a timeout each.
        let requests = try await mock.stats()["requests"]?.intValue ?? -1
        #expect((1...5).contains(requests), "\(requests) requests reached the mock")
    }
}
