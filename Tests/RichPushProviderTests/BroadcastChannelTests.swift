import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

/// Broadcast channels and Live Activities against the mock APNs over real HTTP/2 + TLS sockets.
///
/// The mock's rules come from Apple's documents, not from this client (each is written next to
/// its rule in `Tests/Support/mock_apns.py`):
/// - "Sending channel management requests to APNs": channel requests on their own host and port;
///   create `POST /1/apps/<bundle>/channels` `{"message-storage-policy", "push-type": "LiveActivity"}`
///   → 201 + `apns-channel-id`; read `GET` → 200 + the policy; delete `DELETE` → 204; list
///   `GET /1/apps/<bundle>/all-channels` → `{"channels": [...]}`; 10,000 channels per app and
///   environment (`CannotCreateChannelConfig`).
/// - "Sending broadcast push notification requests to APNs": `POST /4/broadcasts/apps/<bundle>`
///   with `apns-channel-id`, `apns-push-type: liveactivity`, `apns-priority` 10/5/1,
///   `apns-expiration` (0 on a No Message Stored channel, else `BadExpirationDate`), ≤ 5,120 bytes.
/// - "Starting and updating Live Activities with ActivityKit push notifications": the start goes
///   to a push-to-start token on `<bundle>.push-type.liveactivity` with `input-push-channel`.
@Suite(.serialized) struct BroadcastChannelTests {
    static let pushToStartToken = MockAPNs.token("5717")

    static func matchState(_ home: Int, _ away: Int, minute: Int) -> RichPushJSONValue {
        .object(["home": .int(home), "away": .int(away), "minute": .int(minute)])
    }

    @Test func createStartOnTheChannelHundredUpdatesEndAndDelete() async throws {
        let mock = try await MockAPNs(channels: true)
        defer { mock.stop() }
        let manager = try mock.tokenManager()
        let channels = try mock.broadcastClient(manager: manager)
        defer { channels.shutdown() }
        let devices = try mock.client(manager: manager)
        defer { devices.shutdown() }

        // Create: 201 with the channel id, read back, listed.
        let channel = try await channels.createChannel(policy: .noMessageStored)
        #expect(Data(base64Encoded: channel.id) != nil)
        #expect(channel.policy == .noMessageStored)
        #expect(channel.requestID.map { UUID(uuidString: $0) != nil } == true)
        #expect(try await channels.readChannel(channel.id).policy == .noMessageStored)
        #expect(try await channels.listChannels() == [channel.id])

        // Start, to a push-to-start token, listening on the channel.
        var start = LiveActivityPayload(event: .start, contentState: Self.matchState(0, 0, minute: 0))
        start.attributesType = "MatchAttributes"
        start.attributes = .object(["homeTeam": .string("Lyon"), "awayTeam": .string("Nantes")])
        start.alert = LiveActivityAlert(title: "Kick-off", body: "Lyon – Nantes has started", sound: "default")
        start.inputPushChannel = channel.id
        let startNotification = APNsNotification.liveActivity(start, bundleID: MockAPNs.topic, priority: .immediately)
        #expect(startNotification.topic == "com.example.app.push-type.liveactivity")
        let started = try await devices.send(startNotification, to: Self.pushToStartToken)
        #expect(started.outcome == .accepted)
        let sent = try RichPushJSONValue.parse(Data(base64Encoded: try #require(try await mock.stats()["last_body_b64"]?.stringValue)) ?? Data())
        #expect(sent["aps"]?["input-push-channel"]?.stringValue == channel.id)
        #expect(sent["aps"]?["attributes-type"]?.stringValue == "MatchAttributes")

        // 100 updates on the channel, each one accepted with APNs' ids.
        let kickoff = Date()
        for minute in 1...100 {
            let update = LiveActivityPayload(
                event: .update, contentState: Self.matchState(minute / 30, minute / 45, minute: minute), timestamp: kickoff.addingTimeInterval(Double(minute)))
            let result = try await channels.broadcast(
                APNsBroadcastNotification(payload: update.jsonData(), channelID: channel.id, priority: .considerate), policy: channel.policy)
            #expect(result.status == 200)
            #expect(result.uniqueID != nil)
            #expect(result.attempts == 1)
        }

        // End with a dismissal date, on the channel.
        var end = LiveActivityPayload(event: .end, contentState: Self.matchState(3, 2, minute: 90), timestamp: kickoff.addingTimeInterval(200))
        let dismissal = kickoff.addingTimeInterval(3600)
        end.dismissalDate = dismissal
        try await channels.broadcast(APNsBroadcastNotification(payload: end.jsonData(), channelID: channel.id, priority: .immediately), policy: channel.policy)

        let stats = try await mock.stats()
        #expect(stats["broadcasts"]?[channel.id] == .int(101))
        let last = try RichPushJSONValue.parse(Data(base64Encoded: try #require(stats["last_broadcast_b64"]?.stringValue)) ?? Data())
        #expect(last["aps"]?["event"] == .string("end"))
        #expect(last["aps"]?["dismissal-date"] == .int(Int(dismissal.timeIntervalSince1970)))
        #expect(last["aps"]?["content-state"]?["home"] == .int(3))

        // Delete: 204; the channel is gone for reads and broadcasts alike.
        try await channels.deleteChannel(channel.id)
        #expect(try await channels.listChannels().isEmpty)
        let read = await #expect(throws: APNsChannelError.self) { try await channels.readChannel(channel.id) }
        #expect(read?.code == .channelNotRegistered)
        #expect(read?.reason == "ChannelNotRegistered")
        #expect(read?.message.contains("create a new one") == true)
        let late = await #expect(throws: APNsChannelError.self) {
            try await channels.broadcast(APNsBroadcastNotification(payload: end.jsonData(), channelID: channel.id, priority: .immediately))
        }
        #expect(late?.code == .channelNotRegistered)
        #expect(late?.status == 400)
    }

    @Test func aNonZeroExpirationToAPolicyZeroChannelIsBadExpirationDate() async throws {
        let mock = try await MockAPNs(channels: true)
        defer { mock.stop() }
        let channels = try mock.broadcastClient(manager: try mock.tokenManager())
        defer { channels.shutdown() }
        let unstored = try await channels.createChannel(policy: .noMessageStored)
        let stored = try await channels.createChannel(policy: .mostRecentMessageStored)
        let update = LiveActivityPayload(event: .update, contentState: Self.matchState(1, 0, minute: 12))
        var notification = APNsBroadcastNotification(payload: update.jsonData(), channelID: unstored.id, priority: .immediately)
        notification.expiration = APNsBroadcastNotification.expiration(Date().addingTimeInterval(3600))

        // The policy unknown to the client: APNs (the mock, by Apple's rule) answers BadExpirationDate.
        let answered = await #expect(throws: APNsChannelError.self) { try await channels.broadcast(notification) }
        #expect(answered?.code == .badExpirationDate)
        #expect(answered?.status == 400)
        #expect(answered?.reason == "BadExpirationDate")
        #expect(answered?.attempts == 1)
        #expect(answered?.message.contains("message-storage-policy 0") == true)

        // The policy known: refused before it leaves, naming apns-expiration; nothing sent.
        let before = try await mock.stats()["requests"]
        let refused = await #expect(throws: APNsChannelError.self) { try await channels.broadcast(notification, policy: unstored.policy) }
        #expect(refused?.code == .payloadRejected)
        #expect(refused?.findings.map(\.keyPath) == ["apns-expiration"])
        #expect(refused?.findings.first?.code == .expirationOnUnstoredChannel)
        #expect(try await mock.stats()["requests"] == before)

        // The same expiration on a Most Recent Message Stored channel is accepted.
        notification.channelID = stored.id
        #expect(try await channels.broadcast(notification, policy: stored.policy).status == 200)
    }

    @Test func theTenThousandAndFirstChannelIsRefusedUntilOneIsDeleted() async throws {
        let mock = try await MockAPNs(channels: true)
        defer { mock.stop() }
        let channels = try mock.broadcastClient(manager: try mock.tokenManager())
        defer { channels.shutdown() }
        try await mock.addChannels(9_995)
        var created: [APNsChannel] = []
        for _ in 0..<5 { created.append(try await channels.createChannel(policy: .mostRecentMessageStored)) }
        #expect(try await channels.listChannels().count == 10_000)

        let refused = await #expect(throws: APNsChannelError.self) { try await channels.createChannel(policy: .noMessageStored) }
        #expect(refused?.code == .channelLimitReached)
        #expect(refused?.reason == "CannotCreateChannelConfig")
        #expect(refused?.attempts == 1)  // a create is never sent twice
        #expect(refused?.message.contains("10,000") == true)

        try await channels.deleteChannel(created[0].id)
        let again = try await channels.createChannel(policy: .noMessageStored)
        #expect(again.id != created[0].id)
        #expect(try await mock.stats()["channels"] == .int(10_000))
    }

    @Test func channelRequestsSentToTheBroadcastHostAreBadPath() async throws {
        let mock = try await MockAPNs(channels: true)
        defer { mock.stop() }
        // A client that sends channel requests to the device/broadcast host (APNSwift#240's kind of
        // mistake): Apple's management host is another host and port, so the mock says BadPath.
        var configuration = TransportConfiguration()
        configuration.caFile = mock.caFile.path
        let wrong = try APNsBroadcastClient(
            bundleID: MockAPNs.topic, environment: .custom(managementURL: mock.baseURL, broadcastURL: mock.baseURL),
            authentication: .token(try mock.tokenManager()), transport: configuration)
        defer { wrong.shutdown() }
        let error = await #expect(throws: APNsChannelError.self) { try await wrong.createChannel(policy: .noMessageStored) }
        #expect(error?.code == .providerConfiguration)
        #expect(error?.status == 404)
        #expect(error?.reason == "BadPath")
        #expect(error?.message.contains("management host") == true)
    }

    @Test func theBundleIDAndTheCapabilityAreChecked() async throws {
        let disabled = try await MockAPNs(channels: true, options: ["--broadcast-disabled"])
        defer { disabled.stop() }
        let client = try disabled.broadcastClient(manager: try disabled.tokenManager())
        defer { client.shutdown() }
        let off = await #expect(throws: APNsChannelError.self) { try await client.listChannels() }
        #expect(off?.code == .featureNotEnabled)
        #expect(off?.message.contains("Broadcast Capability") == true)

        let mock = try await MockAPNs(channels: true)
        defer { mock.stop() }
        let other = try mock.broadcastClient(manager: try mock.tokenManager(), bundleID: "com.example.other")
        defer { other.shutdown() }
        let mismatch = await #expect(throws: APNsChannelError.self) { try await other.createChannel(policy: .noMessageStored) }
        #expect(mismatch?.code == .providerConfiguration)
        #expect(mismatch?.status == 403)
        #expect(mismatch?.reason == "TopicMismatch")
        // The liveactivity topic given as the bundle id is trimmed to the bundle id.
        let suffixed = try mock.broadcastClient(manager: try mock.tokenManager(), bundleID: "com.example.app.push-type.liveactivity")
        defer { suffixed.shutdown() }
        #expect(suffixed.bundleID == MockAPNs.topic)
        #expect(try await suffixed.listChannels().isEmpty)
    }

    @Test func aBroadcastOverFiveKilobytesOrAStartIsRefusedBeforeItLeaves() async throws {
        let mock = try await MockAPNs(channels: true)
        defer { mock.stop() }
        let channels = try mock.broadcastClient(manager: try mock.tokenManager())
        defer { channels.shutdown() }
        let channel = try await channels.createChannel(policy: .noMessageStored)
        var big = LiveActivityPayload(event: .update, contentState: .object(["note": .string("x")]))
        big.customKeys["padding"] = .string(String(repeating: "p", count: 5_200))
        let tooLarge = await #expect(throws: APNsChannelError.self) {
            try await channels.broadcast(APNsBroadcastNotification(payload: big.jsonData(), channelID: channel.id, priority: .immediately))
        }
        #expect(tooLarge?.code == .payloadRejected)
        #expect(tooLarge?.findings.contains { $0.code == .payloadTooLarge && $0.message.contains("5120") } == true)

        var start = LiveActivityPayload(event: .start, contentState: .object([:]))
        start.attributesType = "MatchAttributes"
        start.attributes = .object([:])
        start.alert = LiveActivityAlert(title: "t", body: "b")
        let startOnChannel = await #expect(throws: APNsChannelError.self) {
            try await channels.broadcast(APNsBroadcastNotification(payload: start.jsonData(), channelID: channel.id, priority: .immediately))
        }
        #expect(startOnChannel?.findings.map(\.keyPath) == ["aps.event"])
        #expect(try await mock.stats()["broadcasts"] == .object([:]))
    }

    @Test func throttlingIsRetriedAnExpiredTokenRenewedAnd500RetriedOnlyWithoutAlert() async throws {
        let mock = try await MockAPNs(channels: true)
        defer { mock.stop() }
        let channels = try mock.broadcastClient(manager: try mock.tokenManager())
        defer { channels.shutdown() }
        let a = try await channels.createChannel(policy: .noMessageStored)
        let b = try await channels.createChannel(policy: .noMessageStored)
        let c = try await channels.createChannel(policy: .noMessageStored)
        try await mock.script([
            "channel:" + a.id: [["status": 429, "reason": "TooManyRequests"], ["status": 503, "reason": "ServiceUnavailable"], ["status": 200]],
            "channel:" + b.id: [["status": 403, "reason": "ExpiredProviderToken"], ["status": 200]],
            "channel:" + c.id: [["status": 500, "reason": "InternalServerError"], ["status": 200]],
        ])
        let update = LiveActivityPayload(event: .update, contentState: Self.matchState(2, 1, minute: 70))
        let throttled = try await channels.broadcast(APNsBroadcastNotification(payload: update.jsonData(), channelID: a.id, priority: .immediately))
        #expect(throttled.attempts == 3)
        let renewed = try await channels.broadcast(APNsBroadcastNotification(payload: update.jsonData(), channelID: b.id, priority: .immediately))
        #expect(renewed.attempts == 2)
        #expect(try await mock.stats()["jwts"] == .int(2))

        // A 500 may have been processed: an update with an alert is not sent twice (it could alert
        // twice); the same update without one is.
        var alerting = update
        alerting.alert = LiveActivityAlert(title: "Goal", body: "2 – 1")
        let once = await #expect(throws: APNsChannelError.self) {
            try await channels.broadcast(APNsBroadcastNotification(payload: alerting.jsonData(), channelID: c.id, priority: .immediately))
        }
        #expect(once?.code == .serverError)
        #expect(once?.attempts == 1)
        try await mock.script(["channel:" + c.id: [["status": 500, "reason": "InternalServerError"], ["status": 200]]])
        let twice = try await channels.broadcast(APNsBroadcastNotification(payload: update.jsonData(), channelID: c.id, priority: .immediately))
        #expect(twice.attempts == 2)
        #expect(try await mock.stats()["broadcasts"] == .object([a.id: .int(1), b.id: .int(1), c.id: .int(1)]))
    }

    @Test func everyReasonAppleListsForChannelsMapsToACodeAndAnAction() {
        for (status, reason) in APNsReason.documentedForBroadcast {
            for operation in APNsChannelOperation.allCases {
                let (code, message) = APNsChannelError.classify(
                    status: status, reason: reason, operation: operation, bundleID: "com.example.app", environment: .sandbox)
                #expect(code != .rejected, "\(status) \(reason.rawValue) is one of Apple's reasons")
                #expect(message.count > 30, "\(reason.rawValue): \(message)")
            }
        }
        let expected: [(String, APNsChannelError.Code)] = [
            ("FeatureNotEnabled", .featureNotEnabled), ("ChannelNotRegistered", .channelNotRegistered), ("BadChannelId", .badChannelID),
            ("CannotCreateChannelConfig", .channelLimitReached), ("BadExpirationDate", .badExpirationDate), ("PayloadTooLarge", .payloadTooLarge),
            ("TopicMismatch", .providerConfiguration), ("MissingChannelId", .invalidRequest), ("TooManyRequests", .throttled),
            ("Service Unavailable", .unavailable), ("InternalServerError", .serverError),
        ]
        for (reason, code) in expected {
            let status = APNsReason.documentedForBroadcast.first { $0.reason.rawValue == reason }?.status ?? 0
            #expect(
                APNsChannelError.classify(status: status, reason: APNsReason(rawValue: reason), operation: .broadcast, bundleID: "b", environment: .production)
                    .code
                    == code, "\(reason)")
        }
        let unknown = APNsChannelError.classify(
            status: 400, reason: APNsReason(rawValue: "SomethingNew"), operation: .read, bundleID: "b", environment: .sandbox)
        #expect(unknown.code == .rejected)
        #expect(unknown.message.contains("SomethingNew"))
    }

    @Test func aLiveActivityPushToAPlainTopicOrWithoutAlertOnStartIsNotSent() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let client = try mock.client(manager: try mock.tokenManager())
        defer { client.shutdown() }
        var start = LiveActivityPayload(event: .start, contentState: .object(["minute": .int(0)]))
        start.attributesType = "MatchAttributes"
        start.attributes = .object([:])
        let noAlert = await #expect(throws: RichPushError.self) {
            try await client.send(APNsNotification.liveActivity(start, bundleID: MockAPNs.topic), to: MockAPNs.token("aa"))
        }
        #expect(noAlert?.code == .payloadRejected)
        #expect(noAlert?.message.contains("aps.alert") == true)

        start.alert = LiveActivityAlert(title: "Kick-off", body: "Lyon – Nantes")
        var plain = APNsNotification.liveActivity(start, bundleID: MockAPNs.topic)
        plain.topic = MockAPNs.topic
        let topic = await #expect(throws: RichPushError.self) { try await client.send(plain, to: MockAPNs.token("aa")) }
        #expect(topic?.code == .invalidRequest)
        #expect(topic?.message.contains(".push-type.liveactivity") == true)
        #expect(try await mock.stats()["requests"] == .int(0))

        // Priority 1 is not one of the two Apple allows for an ActivityKit push to a device.
        let lowest = await #expect(throws: RichPushError.self) {
            try await client.send(APNsNotification.liveActivity(start, bundleID: MockAPNs.topic, priority: .low), to: MockAPNs.token("aa"))
        }
        #expect(lowest?.message.contains("apns-priority") == true)
        #expect(try await client.send(APNsNotification.liveActivity(start, bundleID: MockAPNs.topic), to: MockAPNs.token("aa")).outcome == .accepted)
    }

    @Test func anUpdateWithoutAlertIsResentAfterALostAnswerAndAStartIsNot() async throws {
        let mock = try await MockAPNs(options: ["--never-answer"])
        defer { mock.stop() }
        let manager = try mock.tokenManager()
        // One client per send: after a request timed out, the HTTP/2 client holds new requests
        // to that host back for a while (not sent), which is not what is tested here.
        func client() throws -> APNsClient {
            var configuration = TransportConfiguration()
            configuration.caFile = mock.caFile.path
            configuration.requestTimeout = 1
            return APNsClient(
                environment: .custom(mock.baseURL), authentication: .token(manager), httpTransport: try HTTP2Client(configuration: configuration),
                retry: APNsRetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.05))
        }
        var start = LiveActivityPayload(event: .start, contentState: Self.matchState(0, 0, minute: 0))
        start.attributesType = "MatchAttributes"
        start.attributes = .object([:])
        start.alert = LiveActivityAlert(title: "Kick-off", body: "Lyon – Nantes")
        let startClient = try client()
        defer { startClient.shutdown() }
        let once = try await startClient.send(APNsNotification.liveActivity(start, bundleID: MockAPNs.topic), to: MockAPNs.token("5a"))
        #expect(once.outcome == .unknown)
        #expect(once.attempts == 1, "\(once.message ?? "")")
        #expect(try await mock.stats()["requests"] == .int(1))

        let updateClient = try client()
        defer { updateClient.shutdown() }
        let update = LiveActivityPayload(event: .update, contentState: Self.matchState(1, 0, minute: 10))
        let resent = try await updateClient.send(APNsNotification.liveActivity(update, bundleID: MockAPNs.topic), to: MockAPNs.token("0d"))
        #expect(resent.status == nil)
        // Resent after the lost answer (the later attempts may be held back by the client while the
        // host does not answer: what matters is that the retry loop sends it again).
        #expect(resent.outcome == .unknown)
        #expect(resent.attempts == 3, "\(resent.message ?? "")")
    }
}
