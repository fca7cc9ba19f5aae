import Foundation
import RichPushCore
import RichPushProvider
import Testing

/// A transport whose every request fails the same way, counting the requests it was given.
/// `@unchecked Sendable`: the count is changed and read under `lock` only.
final class FailingTransport: HTTPTransport, @unchecked Sendable {
    let error: RichPushError
    private let lock = NSLock()
    private var count = 0
    init(_ error: RichPushError) { self.error = error }
    var requests: Int { lock.withLock { count } }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        lock.withLock { count += 1 }
        throw error
    }
    var connectionsOpened: Int { 0 }
    func shutdown() {}
}

/// A batch stops early on errors that retrying cannot fix, instead of trying every token.
@Suite struct APNsBatchGivingUpTests {
    let tokens = (0..<2_000).map { String(format: "%064x", $0) }

    func client(_ transport: FailingTransport) -> APNsClient {
        APNsClient(
            environment: .custom("https://127.0.0.1:9"), authentication: .certificate(.init(certificateFile: "unused.pem")),
            httpTransport: transport, retry: APNsRetryPolicy(maxAttempts: 4, baseDelay: 0, maxDelay: 0), batchWindow: 10
        )
    }

    @Test func aRefusingHostGivesUpTheBatchAfterAFewTokensInsteadOfRetryingAll() async throws {
        let transport = FailingTransport(RichPushError(code: .connectionFailed, message: "POST … failed: Couldn't connect to server (curl 7)"))
        let batch = try await client(transport).send(MockAPNs.notification(), to: tokens)
        #expect(batch.stoppedBy?.code == .connectionFailed)
        #expect(batch.stoppedBy?.message.contains("gave up the batch") == true)
        #expect(batch.results.count == tokens.count)
        #expect(batch.results.filter { $0.outcome == .notSent }.count > 1_900)
        #expect(transport.requests < 200, "\(transport.requests) requests for \(tokens.count) tokens")
    }

    @Test func anUntrustedServerCertificateIsNeverRetried() async throws {
        let transport = FailingTransport(
            RichPushError(
                code: .tlsConfiguration,
                message: "SSL peer certificate was not OK (curl 60); the server's certificate is not trusted: pass its CA with --ca-file"))
        let batch = try await client(transport).send(MockAPNs.notification(), to: tokens)
        #expect(batch.stoppedBy?.message.contains("--ca-file") == true)
        #expect(batch.results.allSatisfy { $0.attempts <= 1 })
        #expect(transport.requests <= 30)
    }
}
