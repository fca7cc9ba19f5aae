import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport

/// One batch of tokens through `APNsClient` over a fresh `HTTP2Client`, against a server we did
/// not write, and what each side saw.
struct ConformanceRun {
    let batch: APNsBatchResult
    let statistics: HTTP2ClientStatistics
    let seconds: Double

    /// `count` distinct well-formed device tokens (64 hex digits), `salt` keeping runs apart.
    static func tokens(_ count: Int, salt: Int = 0) -> [String] {
        (0..<count).map { String(format: "%016x", salt) + String(format: "%048x", $0) }
    }

    /// A throwaway P-256 key for the provider token (the servers here do not check it).
    static func tokenManager(in directory: URL) async throws -> APNsTokenManager {
        let key = directory.appendingPathComponent("AuthKey_\(MockAPNs.keyID).p8")
        if !FileManager.default.fileExists(atPath: key.path) { try await MockAPNs.makeKey(at: key) }
        return APNsTokenManager(signer: try ES256Signer(contentsOf: key), keyID: MockAPNs.keyID, teamID: MockAPNs.teamID)
    }

    /// Makes the client (one `HTTP2Client`, `connections` × `streams`).
    static func client(
        baseURL: String, caFile: String?, manager: APNsTokenManager, connections: Int, streams: Int, requestTimeout: Double = 30,
        pingTimeout: Double = 10
    ) throws -> (APNsClient, HTTP2Client) {
        var configuration = TransportConfiguration()
        configuration.caFile = caFile
        configuration.connections = connections
        configuration.maxConcurrentStreams = streams
        configuration.requestTimeout = requestTimeout
        configuration.pingTimeout = pingTimeout
        let http = try HTTP2Client(configuration: configuration)
        let client = APNsClient(
            environment: .custom(baseURL), authentication: .token(manager), httpTransport: http,
            retry: APNsRetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.2), batchWindow: connections * streams)
        return (client, http)
    }

    /// Sends one notification to `tokens` and measures.
    static func send(_ tokens: [String], with client: (APNsClient, HTTP2Client), collapseID: String? = nil) async throws -> ConformanceRun {
        var notification = MockAPNs.notification()
        notification.collapseID = collapseID
        let start = ContinuousClock.now
        let batch = try await client.0.send(notification, to: tokens)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return ConformanceRun(batch: batch, statistics: client.1.statistics, seconds: seconds)
    }

    /// Tokens per outcome, for messages.
    var outcomes: [String: Int] {
        batch.results.reduce(into: [:]) { $0[$1.outcome.rawValue, default: 0] += 1 }
    }

    /// Every token has exactly one result, in order.
    func everyTokenOneResult(_ tokens: [String]) -> Bool {
        batch.results.map(\.deviceToken) == tokens
    }

    /// Tokens the server processed other than once, among `tokens`.
    static func notOnce(_ tokens: [String], _ perToken: [String: Int]) -> [String: Int] {
        var wrong: [String: Int] = [:]
        for token in tokens where perToken[token] != 1 { wrong[token] = perToken[token] ?? 0 }
        return wrong
    }
}
