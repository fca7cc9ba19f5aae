import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `POST /v1/pushes` through FCM while FCM's OAuth2 token endpoint answers 500
/// (`FailingTokenEndpoint`, named by the service account's `token_uri`): the tokens end
/// `retries_exhausted`, as FCM's own 5xx does, and the answer is `502 fcm_unavailable` ("send
/// again later"), not `fcm_configuration`, which sends the operator to settings that are right.
@Suite("FCM's token endpoint down for now, through the server")
struct FCMTokenEndpointOutageTests {
    @Test("tokens end retries_exhausted and the answer is 502 fcm_unavailable; FCM itself got no request")
    func tokenEndpointDown() async throws {
        let fcm = try await MockFCMProcess()
        defer { fcm.stop() }
        let endpoint = try await FailingTokenEndpoint()
        defer { endpoint.stop() }
        let dir = try Fixtures.temporaryDirectory("fcm-outage")
        defer { try? FileManager.default.removeItem(at: dir) }
        var account = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: fcm.serviceAccountFile)) as? [String: Any])
        account["token_uri"] = endpoint.url("/500")
        let accountFile = dir.appendingPathComponent("service-account.json")
        try JSONSerialization.data(withJSONObject: account).write(to: accountFile)

        let server = try await ServerProcess(extraArguments: ["--fcm-service-account", accountFile.path, "--fcm-url", fcm.endpoint])
        let tokens = (0..<8).map { "fcm-device-\($0):APA91b" }
        let body = try JSONSerialization.data(withJSONObject: ["push_id": "outage-1", "tokens": tokens, "title": "t", "media": "off"])
        let sent = try await server.client().postJSON("/v1/pushes", String(decoding: body, as: UTF8.self), headers: server.admin)
        #expect(sent.status == 502, "\(sent.text)")
        let answer = try sent.json()
        let error = try #require(answer["error"] as? [String: Any])
        #expect(error["code"] as? String == "fcm_unavailable", "\(error)")
        let message = try #require(error["message"] as? String)
        #expect(message.contains("send the push again later"), "\(message)")
        // What failed (the token endpoint, for now), and no "attempts" that were never made.
        #expect(message.contains("a temporary failure of the endpoint"), "\(message)")
        #expect(!message.contains("attempts each"), "\(message)")
        let outcomes = try #require(answer["results"] as? [[String: Any]]).compactMap { $0["outcome"] as? String }
        #expect(outcomes.count == tokens.count)
        #expect(outcomes.contains("retries_exhausted"), "\(outcomes)")
        #expect(Set(outcomes).isSubset(of: ["retries_exhausted", "not_sent"]), "\(outcomes)")
        #expect(answer["sent"] as? Int == 0)
        let stats = try await fcm.stats()
        #expect(stats["sends"] == .int(0), "\(stats)")
        #expect(stats["token_fetches"] == .int(0), "\(stats)")
        #expect(await server.terminate() == 0)
    }
}
