import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

/// What `FCMAccessTokenProvider` says when the OAuth2 token endpoint does not give a token, each
/// case played by a Python `http.server` the test starts (`FailingTokenEndpoint`) (a new user's attack run found every one
/// of them called "refused the service account", the unreachable one pointed at `--apns-url`,
/// and the endpoint's password and query in the messages).
@Suite("FCM's token endpoint failing", .serialized)
struct FCMTokenEndpointTests {
    static func failure(_ tokenURI: String, account base: FCMServiceAccount) async throws -> RichPushError {
        var account = base
        account.tokenURI = tokenURI
        let client = try FCMClient(account: account, transport: TransportConfiguration())
        defer { client.shutdown() }
        do {
            _ = try await client.accessTokens.accessToken()
            throw TestSupportError("\(tokenURI) gave a token")
        } catch let error as RichPushError {
            return error
        }
    }

    @Test("5xx and 429: temporary; a redirect: not followed; 200 without a token: not a token answer; 400: refused; no password or query shown")
    func eachAnswerNamed() async throws {
        let mock = try await MockFCMProcess()
        defer { mock.stop() }
        let server = try await FailingTokenEndpoint()
        defer { server.stop() }
        let account = try FCMServiceAccount(json: try Data(contentsOf: mock.serviceAccountFile))
        let port = server.port
        let base = "http://tokuser:TOKPW@127.0.0.1:\(port)"

        for path in ["/500", "/429"] {
            let error = try await Self.failure(base + path + "?key=TOKQ", account: account)
            #expect(error.code == .transport, "\(error)")
            #expect(error.message.contains("a temporary failure of the endpoint, not of the service account; try again later"), "\(error.message)")
        }
        let redirect = try await Self.failure(base + "/302?key=TOKQ", account: account)
        #expect(redirect.message.contains("answered a redirect (status 302 to http://127.0.0.1/elsewhere), which is not followed"), "\(redirect.message)")
        let html = try await Self.failure(base + "/html", account: account)
        #expect(html.message.contains("answered 200 without an access_token (not JSON)"), "\(html.message)")
        let refused = try await Self.failure(base + "/token?key=TOKQ", account: account)
        #expect(refused.code == .oauth)
        #expect(refused.message.contains("refused the service account \(account.clientEmail): Invalid JWT Signature."), "\(refused.message)")
        #expect(refused.message.contains("http://127.0.0.1:\(port)/token refused"), "\(refused.message)")

        // Unreachable: the hint names the token endpoint, not the FCM or APNs URL setting.
        let closed = try PortReservation()
        let unreachable = try await Self.failure("http://tokuser:TOKPW@127.0.0.1:\(closed.port)/token?key=TOKQ", account: account)
        #expect(unreachable.code == .connectionFailed, "\(unreachable)")
        #expect(unreachable.message.contains("check the host and port (the service account's token_uri)"), "\(unreachable.message)")
        withExtendedLifetime(closed) {}

        for error in [redirect, html, refused, unreachable] {
            for secret in ["TOKPW", "TOKQ", "tokuser", "LOCPW", "LOCQ", "mallory"] {
                #expect(!error.message.contains(secret), "\(secret) in \(error.message)")
            }
        }
    }

    @Test(
        "a batch while the token endpoint fails for now (500, 429) ends retries_exhausted, as FCM's own 5xx does, not configuration_error; a refusal stops it configuration_error"
    )
    func batchOutcomes() async throws {
        let mock = try await MockFCMProcess()
        defer { mock.stop() }
        let server = try await FailingTokenEndpoint()
        defer { server.stop() }
        var account = try FCMServiceAccount(json: try Data(contentsOf: mock.serviceAccountFile))
        let message = FCMMessage(apnsPayload: RichPushPayloadBuilder(title: "t", body: "b").jsonValue())
        let tokens = (0..<5).map { "fcm-\($0)" }
        for path in ["/500", "/429"] {
            account.tokenURI = server.url(path)
            let client = try FCMClient(account: account, transport: TransportConfiguration())
            let batch = try await client.send(message, to: tokens)
            client.shutdown()
            #expect(batch.countsByOutcome == ["retries_exhausted": 5], "\(path): \(batch.countsByOutcome)")
            #expect(batch.results.allSatisfy { $0.status == nil && $0.message?.contains("a temporary failure of the endpoint") == true }, "\(path)")
        }
        account.tokenURI = server.url("/token")
        let client = try FCMClient(account: account, transport: TransportConfiguration())
        defer { client.shutdown() }
        let refused = try await client.send(message, to: tokens)
        #expect(refused.countsByOutcome["configuration_error", default: 0] >= 1, "\(refused.countsByOutcome)")
        #expect(refused.countsByOutcome["retries_exhausted"] == nil, "\(refused.countsByOutcome)")
        #expect(refused.stoppedBy?.message.contains("Invalid JWT Signature.") == true, "\(refused.stoppedBy?.message ?? "not stopped")")
    }
}
