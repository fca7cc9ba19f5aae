import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

/// The FCM HTTP v1 client against a local mock of the OAuth2 and messages:send endpoints.
@Suite(.serialized) struct FCMClientTests {
    final class Mock: @unchecked Sendable {
        let directory: URL
        let process: ChildProcess
        let port: Int
        let account: FCMServiceAccount
        let transport: CurlHTTP2Transport

        init() async throws {
            directory = try Fixtures.temporaryDirectory("mock-fcm")
            let key = directory.appendingPathComponent("sa.pem")
            let made = try await ChildProcess("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key.path]).run(timeout: 60)
            guard made.status == 0 else { throw TestSupportError("openssl genpkey: \(made.stderr)") }
            process = ChildProcess("python3", [
                Fixtures.supportDirectory.appendingPathComponent("mock_fcm.py").path,
                "--key", key.path, "--client-email", "richpush@demo-project.iam.gserviceaccount.com", "--project", "demo-project",
            ])
            port = try await process.start(waitingForPort: 30)
            let json: JSONValue = .object([
                "type": .string("service_account"), "project_id": .string("demo-project"),
                "client_email": .string("richpush@demo-project.iam.gserviceaccount.com"),
                "private_key": .string(try String(contentsOf: key, encoding: .utf8)),
                "token_uri": .string("http://127.0.0.1:\(port)/token"),
            ])
            account = try FCMServiceAccount(json: json.jsonData())
            transport = try CurlHTTP2Transport()
        }

        var endpoint: String { "http://127.0.0.1:\(port)" }

        func stats() async throws -> JSONValue {
            try JSONValue.parse(try await transport.send(HTTPRequest(method: "GET", url: endpoint + "/stats")).body)
        }

        /// Stops the mock without waiting (safe in `defer`): the transport's thread and the
        /// killed process wind down on their own.
        func stop() {
            transport.shutdown()
            process.kill()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func article001sImagePushIsSentInV1FormWithMutableContent1() async throws {
        let mock = try await Mock()
        defer { mock.stop() }
        let client = try FCMClient(account: mock.account, endpoint: mock.endpoint, transport: mock.transport)
        let image = "https://img.example.com/TenpoLogos/4/thumb.png"
        let result = try await client.send(FCMMessage(token: "fcm-token-1", title: "Push通知テスト", imageURL: image))
        #expect(result.isAccepted)
        #expect(result.name?.hasPrefix("projects/demo-project/messages/") == true)

        let sent = try #require(try await mock.stats()["last_message"])
        let apnsPayload = try #require(sent["apns"]?["payload"])
        #expect(apnsPayload["aps"]?["mutable-content"] == .int(1))
        #expect(apnsPayload["aps"]?["alert"]?["title"] == .string("Push通知テスト"))
        #expect(apnsPayload["image-url"] == .string(image))
        #expect(sent["apns"]?["fcm_options"]?["image"] == .string(image))
        #expect(sent["notification"]?["image"] == .string(image))
        #expect(sent["data"]?["image-url"] == .string(image))
        #expect(PayloadLinter().lint(apnsPayload).isEmpty)
    }

    @Test func theAccessTokenIsCachedUntilNearExpiry() async throws {
        let mock = try await Mock()
        defer { mock.stop() }
        let clock = ManualClock()
        let client = try FCMClient(account: mock.account, endpoint: mock.endpoint, transport: mock.transport, clock: clock)
        for i in 0..<3 {
            #expect(try await client.send(FCMMessage(token: "t\(i)", title: "t", body: "b")).isAccepted)
        }
        #expect(await client.accessTokens.fetches == 1)
        clock.advance(by: 56 * 60)  // 3599 s lifetime, renewed 5 minutes before
        #expect(try await client.send(FCMMessage(token: "t3", title: "t", body: "b")).isAccepted)
        #expect(await client.accessTokens.fetches == 2)
        #expect(try await mock.stats()["token_fetches"] == .int(2))
    }

    @Test func anUnregisteredTokenKeepsFCMsErrorCode() async throws {
        let mock = try await Mock()
        defer { mock.stop() }
        let client = try FCMClient(account: mock.account, endpoint: mock.endpoint, transport: mock.transport)
        let result = try await client.send(FCMMessage(token: "unregistered-1", title: "t", body: "b"))
        #expect(!result.isAccepted)
        #expect(result.status == 404)
        #expect(result.errorCode == "UNREGISTERED")
    }

    @Test func aServiceAccountFileWithoutAKeyNamesTheMissingMember() throws {
        do {
            _ = try FCMServiceAccount(json: Data(#"{"project_id":"p","client_email":"e"}"#.utf8), label: "sa.json")
            Issue.record("accepted a service account without private_key")
        } catch let error as RichPushError {
            #expect(error.code == .configuration)
            #expect(error.message.contains("\"private_key\""))
        }
    }
}
