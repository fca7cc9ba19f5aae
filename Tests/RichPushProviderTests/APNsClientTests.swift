import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

/// The APNs client against the mock APNs over real sockets (HTTP/2 over TLS with a throwaway CA).
@Suite(.serialized) struct APNsClientTests {
    @Test func anAcceptedNotificationReturns200AndTheAPNsID() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let client = try mock.client(manager: try mock.tokenManager())
        defer { client.shutdown() }
        var notification = MockAPNs.notification()
        let id = UUID()
        notification.apnsID = id
        notification.priority = .immediately
        notification.collapseID = "news"
        notification.expiration = Date(timeIntervalSinceNow: 3600)
        let result = try await client.send(notification, to: MockAPNs.token("aa"))
        #expect(result.outcome == .accepted)
        #expect(result.status == 200)
        #expect(result.apnsID == id.uuidString.lowercased())
        #expect(result.reason == nil)
        let stats = try await mock.stats()
        #expect(stats["accepted"] == .int(1))
        #expect(stats["jwts"] == .int(1))  // the JWT verified against the key's public half
    }

    @Test func a410MarksTheTokenInactiveUnlessItRegisteredAgainLater() async throws {
        let token = MockAPNs.token("410")
        let stamp = Int(Date().timeIntervalSince1970 * 1000) - 3_600_000
        let mock = try await MockAPNs(script: [token: [["status": 410, "reason": "Unregistered", "timestamp": stamp]]])
        defer { mock.stop() }
        let registry = InMemoryDeviceTokenRegistry()
        let client = try mock.client(manager: try mock.tokenManager(), handler: registry)
        defer { client.shutdown() }

        let first = try await client.send(MockAPNs.notification(), to: token)
        #expect(first.outcome == .tokenInactive)
        #expect(first.status == 410)
        #expect(first.reason == .unregistered)
        #expect(first.timestamp.map { Int($0.timeIntervalSince1970 * 1000) } == stamp)
        #expect(await registry.state(of: token)?.isInactive == true)

        // The app registers the token again, after APNs' timestamp: the next 410 keeps it.
        await registry.register(token, at: Date())
        let second = try await client.send(MockAPNs.notification(), to: token)
        #expect(second.outcome == .tokenReRegistered)
        #expect(await registry.state(of: token)?.isInactive == false)
    }

    @Test func expiredProviderTokenRenewsOnceAndNotAgainWithin20Minutes() async throws {
        let a = MockAPNs.token("a1"), b = MockAPNs.token("b1"), c = MockAPNs.token("c1")
        let expiredThenOK: [[String: Any]] = [["status": 403, "reason": "ExpiredProviderToken"], ["status": 200]]
        let mock = try await MockAPNs(script: [a: expiredThenOK, b: expiredThenOK, c: expiredThenOK])
        defer { mock.stop() }
        let clock = ManualClock(Date())
        let manager = try mock.tokenManager(clock: clock)
        let client = try mock.client(manager: manager)
        defer { client.shutdown() }

        let renewed = try await client.send(MockAPNs.notification(), to: a)
        #expect(renewed.outcome == .accepted)
        #expect(renewed.attempts == 2)
        #expect(await manager.tokensIssued == 2)

        clock.advance(by: 5 * 60)
        let refused = try await client.send(MockAPNs.notification(), to: b)
        #expect(refused.outcome == .configurationError)
        #expect(refused.reason == .expiredProviderToken)
        #expect(refused.message?.contains("20 minutes") == true)
        #expect(await manager.tokensIssued == 2)

        clock.advance(by: 21 * 60)
        let later = try await client.send(MockAPNs.notification(), to: c)
        #expect(later.outcome == .accepted)
        #expect(await manager.tokensIssued == 3)
        let stats = try await mock.stats()
        #expect(stats["jwts"] == .int(3))
    }

    @Test func tooManyRequestsAnd503AreRetriedWithBackoffThenGiveUp() async throws {
        let flaky = MockAPNs.token("d1"), down = MockAPNs.token("d2")
        let mock = try await MockAPNs(script: [
            flaky: [["status": 429, "reason": "TooManyRequests"], ["status": 503, "reason": "ServiceUnavailable"], ["status": 200]],
            down: [["status": 503, "reason": "Shutdown"]],
        ])
        defer { mock.stop() }
        let client = try mock.client(manager: try mock.tokenManager())
        defer { client.shutdown() }
        let recovered = try await client.send(MockAPNs.notification(), to: flaky)
        #expect(recovered.outcome == .accepted)
        #expect(recovered.attempts == 3)
        let exhausted = try await client.send(MockAPNs.notification(), to: down)
        #expect(exhausted.outcome == .retriesExhausted)
        #expect(exhausted.attempts == 4)
        #expect(exhausted.reason == .shutdown)
        let perToken = try #require(try await mock.stats()["per_token"])
        #expect(perToken[flaky] == .int(3))
        #expect(perToken[down] == .int(4))
    }

    @Test func inABatchRetriesAndARenewalContinueFromTheFirstResponse() async throws {
        let flaky = MockAPNs.token("f1"), expired = MockAPNs.token("f2"), fine = MockAPNs.token("f3")
        let mock = try await MockAPNs(script: [
            flaky: [["status": 429, "reason": "TooManyRequests"], ["status": 503, "reason": "ServiceUnavailable"], ["status": 200]],
            expired: [["status": 403, "reason": "ExpiredProviderToken"], ["status": 200]],
        ])
        defer { mock.stop() }
        let manager = try mock.tokenManager()
        let client = try mock.client(manager: manager)
        defer { client.shutdown() }
        let batch = try await client.send(MockAPNs.notification(), to: [flaky, expired, fine])
        #expect(batch.results.map(\.outcome) == [.accepted, .accepted, .accepted])
        #expect(batch.results.map(\.attempts) == [3, 2, 1])
        #expect(batch.results.map(\.status) == [200, 200, 200])
        #expect(batch.stoppedBy == nil)
        #expect(await manager.tokensIssued == 2)
        let perToken = try #require(try await mock.stats()["per_token"])
        // The first request of each token is sent once, not again by the retry logic.
        #expect(perToken[flaky] == .int(3))
        #expect(perToken[expired] == .int(2))
        #expect(perToken[fine] == .int(1))
    }

    @Test func a5KBPayloadIsRejectedBeforeSending() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let client = try mock.client(manager: try mock.tokenManager())
        defer { client.shutdown() }
        let big = RichPushPayloadBuilder(title: "t", body: String(repeating: "x", count: 5 * 1024))
        do {
            _ = try await client.send(MockAPNs.notification(big), to: MockAPNs.token("ee"))
            Issue.record("a 5 KB payload was sent")
        } catch let error as RichPushError {
            #expect(error.code == .payloadRejected)
            #expect(error.message.contains("4096"))
        }
        #expect(try await mock.stats()["requests"] == .int(0))
    }

    @Test func aCollapseIDOver64BytesIsRejectedBeforeSending() async throws {
        var notification = MockAPNs.notification()
        notification.collapseID = String(repeating: "c", count: 65)
        #expect(throws: RichPushError.self) { try notification.validate() }
        notification.collapseID = String(repeating: "c", count: 64)
        #expect(try notification.validate().isEmpty)
    }

    @Test func manyRequestsShareOneConnection() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let client = try mock.client(manager: try mock.tokenManager(), streams: 100)
        defer { client.shutdown() }
        let tokens = (0..<400).map { MockAPNs.token(String(format: "%04x", $0)) }
        let batch = try await client.send(MockAPNs.notification(), to: tokens)
        #expect(batch.sent == 400)
        #expect(batch.accepted == 400)
        #expect(batch.stoppedBy == nil)
        #expect(client.connectionsOpened == 1)
        let stats = try await mock.stats()
        #expect(stats["device_connections"] == .int(1))
        #expect((stats["max_concurrent_streams"]?.intValue ?? 0) > 1)
        #expect(stats["jwts"] == .int(1))  // one token for all 400 requests
    }

    @Test func aConfigurationErrorStopsTheBatchWithWhatToFix() async throws {
        let mock = try await MockAPNs(keyIDSeen: "OTHERKEY00")
        defer { mock.stop() }
        let client = try mock.client(manager: try mock.tokenManager(), streams: 2)
        defer { client.shutdown() }
        let tokens = (0..<20).map { MockAPNs.token(String(format: "%04x", $0)) }
        let batch = try await client.send(MockAPNs.notification(), to: tokens)
        let stop = try #require(batch.stoppedBy)
        #expect(stop.code == .providerConfiguration)
        #expect(stop.message.contains("InvalidProviderToken"))
        #expect(stop.message.contains("--key-id"))
        #expect(batch.accepted == 0)
        #expect((batch.countsByOutcome["not_sent"] ?? 0) > 0)
        #expect(try await mock.stats()["requests"].flatMap(\.intValue) ?? 99 < 20)
    }

    @Test func badTokensAreMarkedWithASandboxHintAndUnknownReasonsAreKept() async throws {
        let bad = MockAPNs.token("ba"), other = MockAPNs.token("bb"), odd = MockAPNs.token("bc")
        let mock = try await MockAPNs(script: [
            bad: [["status": 400, "reason": "BadDeviceToken"]],
            other: [["status": 400, "reason": "DeviceTokenNotForTopic"]],
            odd: [["status": 400, "reason": "SomethingApple2030Added"]],
        ])
        defer { mock.stop() }
        let registry = InMemoryDeviceTokenRegistry()
        let client = try mock.client(manager: try mock.tokenManager(), handler: registry)
        defer { client.shutdown() }
        let batch = try await client.send(MockAPNs.notification(), to: [bad, other, odd, "not-hex"])
        #expect(batch.results[0].outcome == .tokenBad)
        #expect(batch.results[0].message?.contains("sandbox") == true)
        #expect(await registry.state(of: bad)?.badReason == .badDeviceToken)
        #expect(batch.results[1].outcome == .tokenBad)
        #expect(await registry.state(of: other)?.badReason == .deviceTokenNotForTopic)
        #expect(batch.results[2].outcome == .rejected)
        #expect(batch.results[2].reason?.rawValue == "SomethingApple2030Added")
        #expect(batch.results[3].outcome == .tokenBad)
        #expect(batch.results[3].status == nil)
        #expect(batch.stoppedBy == nil)
        #expect(batch.sent == 3)
    }

    @Test func certificateAuthPresentsTheClientCertificateInTheTLSHandshake() async throws {
        let mock = try await MockAPNs(clientCertificate: true)
        defer { mock.stop() }
        var transport = TransportConfiguration()
        transport.caFile = mock.caFile.path
        let certificate = try #require(mock.clientCertificateFile)
        let client = try APNsClient(
            environment: .custom(mock.baseURL), authentication: .certificate(.init(certificateFile: certificate.path)),
            transport: transport
        )
        defer { client.shutdown() }
        let result = try await client.send(MockAPNs.notification(), to: MockAPNs.token("ce"))
        #expect(result.outcome == .accepted)

        // Without the certificate the server's TLS refuses the connection; with TLS 1.3 that
        // comes after the client's handshake has ended, as an alert about the certificate or a
        // bare close (which of the two depends on how fast the mock's socket closes). Either way
        // no byte of HTTP/2 came back, so no request reached the server's HTTP/2 layer: an alert
        // ends the token configuration_error (retrying cannot help), a bare close is retried and
        // ends retries_exhausted; never unknown, never processed.
        let bare = try APNsClient(
            environment: .custom(mock.baseURL), authentication: .token(try mock.tokenManager()), transport: transport,
            retry: APNsRetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.01)
        )
        defer { bare.shutdown() }
        let refused = try await bare.send(MockAPNs.notification(), to: MockAPNs.token("cf"))
        #expect(refused.status == nil)
        let message = refused.message ?? ""
        #expect(message.contains("refused the connection before HTTP/2 began"), "\(message)")
        if refused.outcome == .configurationError {
            #expect(refused.attempts == 1)
            #expect(message.contains("client certificate"), "\(message)")
        } else {
            #expect(refused.outcome == .retriesExhausted)
            #expect(refused.attempts == 2)
        }
        let stats = try await mock.stats()
        #expect(stats["requests"] == .int(1), "only the request with the certificate reached the mock: \(stats)")
    }
}
