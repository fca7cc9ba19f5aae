import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

/// The FCM HTTP v1 client against the project's mock of Google's OAuth2 endpoint and
/// messages:send (`Tests/Support/mock_fcm.py`), over real sockets.
@Suite(.serialized) struct FCMClientTests {
    /// A client for the mock, with fast retries.
    func client(
        _ mock: MockFCMProcess, clock: any ProviderClock = SystemClock(), handler: (any DeviceTokenStateHandler)? = nil
    ) throws -> (FCMClient, HTTP2Client) {
        let account = try FCMServiceAccount(json: try Data(contentsOf: mock.serviceAccountFile))
        // The mock speaks HTTP/2 without TLS (h2c) and HTTP/1.1 on one port: messages and the
        // token endpoint both go over RichPush's HTTP/2 client here.
        let transport = try HTTP2Client()
        let client = try FCMClient(
            account: account, endpoint: mock.endpoint, transport: transport, clock: clock,
            retry: APNsRetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.05), tokenStateHandler: handler
        )
        return (client, transport)
    }

    @Test func article001sImagePushIsSentInV1FormWithMutableContent1() async throws {
        let mock = try await MockFCMProcess()
        defer { mock.stop() }
        let (client, transport) = try client(mock)
        defer { transport.shutdown() }
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
        #expect(RichPushPayloadLinter().lint(apnsPayload).isEmpty)
    }

    @Test func theAccessTokenIsCachedUntilNearExpiryAndFetchedOnceForAConcurrentBatch() async throws {
        let mock = try await MockFCMProcess()
        defer { mock.stop() }
        let clock = ManualClock()
        let (client, transport) = try client(mock, clock: clock)
        defer { transport.shutdown() }
        let message = FCMMessage(apnsPayload: RichPushPayloadBuilder(title: "t", body: "b").jsonValue())
        let batch = try await client.send(message, to: (0..<40).map { "fcm-\($0)" })
        #expect(batch.accepted == 40)
        #expect(await client.accessTokens.fetches == 1)
        clock.advance(by: 56 * 60)  // 3599 s lifetime, renewed 5 minutes before
        #expect(try await client.send(FCMMessage(token: "t3", title: "t", body: "b")).isAccepted)
        #expect(await client.accessTokens.fetches == 2)
        #expect(try await mock.stats()["token_fetches"] == .int(2))
    }

    @Test func a401RenewsTheAccessTokenOnceAndSends() async throws {
        let mock = try await MockFCMProcess()
        defer { mock.stop() }
        let (client, transport) = try client(mock)
        defer { transport.shutdown() }
        let message = FCMMessage(apnsPayload: RichPushPayloadBuilder(title: "t", body: "b").jsonValue())
        #expect(try await client.send(message, to: ["a"]).accepted == 1)
        try await mock.revokeAccessTokens()
        let again = try await client.send(message, to: ["b", "c", "d"])
        #expect(again.accepted == 3)
        #expect(again.results.allSatisfy { $0.attempts == 2 })
        #expect(try await mock.stats()["token_fetches"] == .int(2))
    }

    @Test func everyFCMErrorCodeMapsToItsOutcome() async throws {
        let quotaThenOK = "quota-1", unavailableThenOK = "unavailable-1", internalAlways = "internal-1", unknown = "unspecified-1"
        let mock = try await MockFCMProcess(script: [
            quotaThenOK: [["status": 429, "errorCode": "QUOTA_EXCEEDED", "retryAfter": "1"], ["status": 200]],
            unavailableThenOK: [["status": 503, "errorCode": "UNAVAILABLE"], ["status": 200]],
            internalAlways: [["status": 500, "errorCode": "INTERNAL"]],
            unknown: [["status": 400, "errorCode": "UNSPECIFIED_ERROR", "message": "something"]],
        ])
        defer { mock.stop() }
        let registry = InMemoryDeviceTokenRegistry()
        let (client, transport) = try client(mock, handler: registry)
        defer { transport.shutdown() }
        var payload = RichPushPayloadBuilder(title: "お知らせ", body: "テスト")
        payload.mediaURL = "https://example.com/001.jpg"
        var apns = APNsNotification(payload: payload.jsonData(), topic: "unused-by-fcm")
        apns.priority = .immediately
        apns.collapseID = "news"
        let message = try FCMMessage(apns)
        #expect(message.imageURL == "https://example.com/001.jpg")
        let tokens = ["ok-1", "unregistered-1", "invalid-1", "mismatch-1", quotaThenOK, unavailableThenOK, internalAlways, unknown, "has space"]
        let clock = ContinuousClock()
        let started = clock.now
        let batch = try await client.send(message, to: tokens)
        let elapsed = clock.now - started
        let outcome = Dictionary(uniqueKeysWithValues: batch.results.map { ($0.deviceToken, $0) })
        #expect(outcome["ok-1"]?.outcome == .accepted)
        #expect(outcome["ok-1"]?.messageName?.hasPrefix("projects/demo-project/messages/") == true)
        #expect(outcome["unregistered-1"]?.outcome == .tokenInactive)
        #expect(outcome["unregistered-1"]?.errorCode == "UNREGISTERED")
        #expect(outcome["unregistered-1"]?.status == 404)
        #expect(outcome["invalid-1"]?.outcome == .tokenBad)
        #expect(outcome["invalid-1"]?.errorCode == "INVALID_ARGUMENT")
        #expect(outcome["mismatch-1"]?.outcome == .tokenBad)
        #expect(outcome["mismatch-1"]?.errorCode == "SENDER_ID_MISMATCH")
        #expect(outcome["mismatch-1"]?.message?.contains("another Firebase project") == true)
        #expect(outcome[quotaThenOK]?.outcome == .accepted)
        #expect(outcome[quotaThenOK]?.attempts == 2)
        #expect(outcome[unavailableThenOK]?.outcome == .accepted)
        #expect(outcome[unavailableThenOK]?.attempts == 2)
        #expect(outcome[internalAlways]?.outcome == .retriesExhausted)
        #expect(outcome[internalAlways]?.errorCode == "INTERNAL")
        #expect(outcome[internalAlways]?.attempts == 3)
        #expect(outcome[unknown]?.outcome == .rejected)
        #expect(outcome[unknown]?.errorCode == "UNSPECIFIED_ERROR")
        #expect(outcome["has space"]?.outcome == .tokenBad)
        #expect(outcome["has space"]?.status == nil)
        // QUOTA_EXCEEDED's Retry-After: 1 was honoured (a lower bound, never flaky).
        #expect(elapsed >= .milliseconds(950))
        #expect(batch.stoppedBy == nil)
        #expect(batch.sent == 8)
        #expect(batch.accepted == 3)
        #expect(await registry.state(of: "unregistered-1")?.isInactive == true)
        #expect(await registry.state(of: "mismatch-1")?.badReason?.rawValue == "SENDER_ID_MISMATCH")
        // The APNs headers went along in apns.headers.
        let stats = try await mock.stats()
        #expect(stats["per_token"]?[quotaThenOK] == .int(2))
        let sent = try #require(stats["last_message"])
        #expect(sent["apns"]?["headers"]?["apns-priority"] == .string("10"))
        #expect(sent["apns"]?["headers"]?["apns-collapse-id"] == .string("news"))
        // And as android.collapse_key, so an Android device collapses a message sent twice too.
        #expect(sent["android"]?["collapse_key"] == .string("news"))
    }

    @Test("an APNs notification without a collapse id gets no android block; with one, android.collapse_key only")
    func androidCollapseKeyFollowsTheCollapseID() throws {
        var apns = APNsNotification(payload: RichPushPayloadBuilder(title: "t", body: "b").jsonData(), topic: "unused-by-fcm")
        let plain = try FCMMessage(apns)
        #expect(plain.androidCollapseKey == nil)
        #expect(plain.requestBody(for: "tok")["message"]?["apns"] != nil)
        #expect(plain.requestBody(for: "tok")["message"]?["android"] == nil)
        apns.collapseID = "campaign-3f0c"
        let collapsed = try FCMMessage(apns)
        let body = collapsed.requestBody(for: "tok")
        #expect(body["message"]?["android"] == .object(["collapse_key": .string("campaign-3f0c")]))
        #expect(body["message"]?["apns"]?["headers"]?["apns-collapse-id"] == .string("campaign-3f0c"))
    }

    @Test(arguments: [
        (#"{"status": 401, "errorCode": "THIRD_PARTY_AUTH_ERROR"}"#, "Firebase console"),
        (#"{"status": 400, "errorCode": "INVALID_ARGUMENT", "message": "Invalid value at 'message.apns.headers'"}"#, "fix the payload or headers"),
        (#"{"status": 403, "message": "The caller does not have permission"}"#, "Cloud Messaging API Admin"),
    ])
    func aConfigurationErrorStopsTheBatchWithWhatToFix(answerJSON: String, hint: String) async throws {
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(answerJSON.utf8)) as? [String: Any])
        let mock = try await MockFCMProcess(script: ["first": [answer]])
        defer { mock.stop() }
        let transport = try HTTP2Client()
        defer { transport.shutdown() }
        // One token per transport batch, so the stop comes before the later tokens are sent.
        let account = try FCMServiceAccount(json: try Data(contentsOf: mock.serviceAccountFile))
        let client = try FCMClient(account: account, endpoint: mock.endpoint, transport: transport, batchWindow: 1)
        let message = FCMMessage(apnsPayload: RichPushPayloadBuilder(title: "t", body: "b").jsonValue())
        let batch = try await client.send(message, to: ["first"] + (1...20).map { "later-\($0)" })
        #expect(batch.results[0].outcome == .configurationError)
        #expect(batch.stoppedBy?.code == .providerConfiguration)
        #expect(batch.stoppedBy?.message.contains(hint) == true, "\(batch.stoppedBy?.message ?? "")")
        #expect((batch.countsByOutcome["not_sent"] ?? 0) >= 15)
        #expect(batch.results.count == 21)
    }

    @Test func anUnknownProjectStopsTheBatchNamingProjectID() async throws {
        let mock = try await MockFCMProcess()
        defer { mock.stop() }
        var json = try RichPushJSONValue.parse(try Data(contentsOf: mock.serviceAccountFile))
        json = json.setting(.string("no-such-project"), at: "project_id")
        let transport = try HTTP2Client()
        defer { transport.shutdown() }
        let client = try FCMClient(account: try FCMServiceAccount(json: json.jsonData()), endpoint: mock.endpoint, transport: transport, batchWindow: 1)
        let batch = try await client.send(FCMMessage(apnsPayload: RichPushPayloadBuilder(title: "t", body: "b").jsonValue()), to: (1...10).map { "t\($0)" })
        #expect(batch.results[0].outcome == .configurationError)
        #expect(batch.results[0].status == 404)
        #expect(batch.stoppedBy?.message.contains("project_id") == true)
        #expect(batch.results.filter { $0.outcome == .notSent }.count >= 5)
    }

    @Test func anHTMLErrorPageIsReadUpToTheCapAndShownOnce() async throws {
        let mock = try await MockFCMProcess(script: ["p1": [["status": 502, "html": true]], "p2": [["status": 502, "html": true]]])
        defer { mock.stop() }
        let (client, transport) = try client(mock)
        defer { transport.shutdown() }
        let batch = try await client.send(FCMMessage(apnsPayload: RichPushPayloadBuilder(title: "t", body: "b").jsonValue()), to: ["p1", "p2"])
        #expect(batch.results.allSatisfy { $0.outcome == .retriesExhausted })
        #expect(batch.results.allSatisfy { $0.message?.contains("shown once") == true })
        let excerpt = try #require(batch.unexpectedBody)
        #expect(excerpt.contains("502 Bad Gateway"))
        #expect(excerpt.contains("text/html"))
        #expect(excerpt.contains("over 16384 bytes"))
        #expect(excerpt.count < 400)
    }

    @Test func theAPNsPayloadReachesFCMByteForByte() async throws {
        let mock = try await MockFCMProcess()
        defer { mock.stop() }
        let (client, transport) = try client(mock)
        defer { transport.shutdown() }
        let payloadText = #"{"aps":{"alert":{"body":"\#u{FEFF}b\ud800","title":"t"}},"big":18446744073709551615,"d":0.1000,"e":1e400}"#
        let message = FCMMessage(apnsPayload: try RichPushJSONValue.parseStrictly(Data(payloadText.utf8)))
        #expect(try await client.send(message, to: ["byte-exact"]).accepted == 1)
        let body = String(decoding: try await mock.lastBody(), as: UTF8.self)
        #expect(body == #"{"message":{"apns":{"payload":"# + payloadText + #"},"token":"byte-exact"}}"#)
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
