import Foundation
import RichPushServer
import RichPushTestSupport
import Testing

/// `POST /v1/pushes` on the built `richpush serve`, sending to `mock_apns.py` over HTTP/2 + TLS.
/// Child processes and the socket client are awaited: nothing here holds a pool thread.
@Suite("POST /v1/pushes", .serialized)
struct PushSendEndpointTests {
    static let accepted = MockAPNsProcess.token("a1")
    static let unregistered = MockAPNsProcess.token("b2")
    static let badToken = MockAPNsProcess.token("c3")
    static var script: [String: [[String: Any]]] {
        [
            unregistered: [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000]],
            badToken: [["status": 400, "reason": "BadDeviceToken"]],
        ]
    }

    func json(_ body: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    @Test("three tokens give sent 3 and accepted 1, token states are kept, and a delivered receipt makes the display rate 1.0")
    func sendRecordsFunnel() async throws {
        let mock = try await MockAPNsProcess(script: Self.script)
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let c = server.client()
        let body = try self.json([
            "push_id": "send-001", "tokens": [Self.accepted, Self.unregistered, Self.badToken],
            "title": "新しい記事", "body": "今すぐ確認", "image": "https://media.example.com/a.jpg",
            // The funnel, not the media: the URL is not fetched (SendMediaCheckTests checks media).
            "media": "off",
        ])
        let r = try await c.postJSON("/v1/pushes", body, headers: server.admin)
        #expect(r.status == 200, "\(r.text)")
        let answer = try r.json()
        #expect(answer["push_id"] as? String == "send-001")
        #expect(answer["push_id_generated"] as? Bool == false)
        #expect(answer["sent"] as? Int == 3)
        #expect(answer["accepted"] as? Int == 1)
        #expect(answer["recorded"] as? Bool == true)
        let results = try #require(answer["results"] as? [[String: Any]])
        let byToken = Dictionary(uniqueKeysWithValues: results.compactMap { r in (r["token"] as? String).map { ($0, r) } })
        #expect(byToken[Self.accepted]?["status"] as? Int == 200)
        #expect(byToken[Self.accepted]?["outcome"] as? String == "accepted")
        #expect(byToken[Self.accepted]?["reason"] is NSNull)
        #expect(UUID(uuidString: byToken[Self.accepted]?["apns_id"] as? String ?? "") != nil)
        #expect(byToken[Self.unregistered]?["status"] as? Int == 410)
        #expect(byToken[Self.unregistered]?["reason"] as? String == "Unregistered")
        #expect(byToken[Self.unregistered]?["outcome"] as? String == "token_inactive")
        #expect(byToken[Self.badToken]?["status"] as? Int == 400)
        #expect(byToken[Self.badToken]?["reason"] as? String == "BadDeviceToken")
        #expect(byToken[Self.badToken]?["outcome"] as? String == "token_bad")

        let before = try await server.push("send-001")
        #expect(before["sent"] as? Int == 3)
        #expect(before["accepted"] as? Int == 1)
        #expect(before["delivered"] as? Int == 0)
        #expect(before["display_rate"] as? Double == 0)

        #expect(try await c.post("/v1/receipts", form: "push_id=send-001&receipt_id=device-a1&outcome=media_attached").status == 202)
        let after = try await server.push("send-001")
        #expect(after["sent"] as? Int == 3)
        #expect(after["accepted"] as? Int == 1)
        #expect(after["delivered"] as? Int == 1)
        #expect(after["opened"] as? Int == 0)
        #expect(after["display_rate"] as? Double == 1.0)
        #expect(await server.terminate() == 0)

        // What APNs said about the tokens themselves is kept (device_tokens).
        let store = try SQLiteStore(path: server.database.path)
        let inactive = try #require(try store.deviceTokenState(Self.unregistered))
        #expect(inactive.state == .inactive)
        #expect(inactive.reason == "Unregistered")
        #expect(inactive.sinceMs == 1_700_000_000_000)
        let bad = try #require(try store.deviceTokenState(Self.badToken))
        #expect(bad.state == .bad)
        #expect(bad.reason == "BadDeviceToken")
        #expect(try store.deviceTokenState(Self.accepted) == nil)
        try store.close()
    }

    @Test("refusals: 401 without the admin token, 400 with the lint findings, 400 naming the field, 413 over 10,000 tokens")
    func refusals() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let c = server.client()
        let simple = try self.json(["tokens": [Self.accepted], "title": "t", "body": "b"])
        #expect(try await c.postJSON("/v1/pushes", simple).status == 401)
        #expect(try await c.postJSON("/v1/pushes", simple, headers: ["Authorization": "Bearer wrong"]).status == 401)

        // mutable-content as the string "1" (article 001's mistake) fails the lint: nothing is sent.
        let badPayload = try self.json([
            "push_id": "lint-1", "tokens": [Self.accepted],
            "payload": ["aps": ["alert": ["title": "t", "body": "b"], "mutable-content": "1"], "image-url": "https://media.example.com/a.jpg"],
        ])
        let lint = try await c.postJSON("/v1/pushes", badPayload, headers: server.admin)
        #expect(lint.status == 400)
        let error = try #require(try lint.json()["error"] as? [String: Any])
        #expect(error["code"] as? String == "payload_rejected")
        let findings = try #require(error["findings"] as? [[String: Any]])
        #expect(findings.contains { $0["code"] as? String == "mutable_content_string" && $0["severity"] as? String == "error" })
        #expect(try await c.request("GET", "/v1/pushes/lint-1", headers: server.admin).status == 404)

        let noTokens = try await c.postJSON("/v1/pushes", try self.json(["title": "t"]), headers: server.admin)
        #expect(noTokens.status == 400)
        #expect((try noTokens.json()["error"] as? [String: Any])?["field"] as? String == "tokens")

        let many = (0..<10_001).map { String(format: "%064x", $0) }
        let tooMany = try await c.postJSON("/v1/pushes", try self.json(["tokens": many, "title": "t"]), headers: server.admin)
        #expect(tooMany.status == 413)
        let tooManyError = try #require(try tooMany.json()["error"] as? [String: Any])
        #expect(tooManyError["field"] as? String == "tokens")
        #expect((tooManyError["message"] as? String ?? "").contains("10000"))
        #expect(await server.terminate() == 0)
    }

    @Test("without APNs settings the endpoint answers 503 naming them; a key APNs refuses gives 502 saying what to fix")
    func configuration() async throws {
        let bare = try await ServerProcess()
        let body = try self.json(["tokens": [Self.accepted], "title": "t", "body": "b"])
        let off = try await bare.client().postJSON("/v1/pushes", body, headers: bare.admin)
        #expect(off.status == 503)
        let offError = try #require(try off.json()["error"] as? [String: Any])
        #expect(offError["code"] as? String == "apns_not_configured")
        let message = offError["message"] as? String ?? ""
        for setting in ["--apns-key", "--apns-key-id", "--apns-team-id", "--apns-topic", "RICHPUSH_APNS_KEY"] {
            #expect(message.contains(setting), "\(setting) in \(message)")
        }
        #expect(await bare.terminate() == 0)

        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let wrongTeam = try await ServerProcess(extraArguments: mock.serveArguments(teamID: "OTHERTEAM1"))
        let refused = try await wrongTeam.client().postJSON("/v1/pushes", body, headers: wrongTeam.admin)
        #expect(refused.status == 502)
        let answer = try refused.json()
        let error = try #require(answer["error"] as? [String: Any])
        #expect(error["code"] as? String == "apns_configuration")
        #expect((error["message"] as? String ?? "").contains("InvalidProviderToken"))
        #expect((error["message"] as? String ?? "").contains("team"))
        // serve's own options, never send's (--key-id, --team-id).
        #expect((error["message"] as? String ?? "").contains("check that --apns-key-id is the key's id"), "\(error)")
        #expect((error["message"] as? String ?? "").contains("that --apns-team-id is the team"), "\(error)")
        #expect(!(error["message"] as? String ?? "").contains(" --key-id"), "\(error)")
        #expect(answer["accepted"] as? Int == 0)
        #expect(await wrongTeam.terminate() == 0)
    }

    @Test(
        "a request's own bad field is a 4xx naming it: push_type outside APNs' types (400), a topic APNs refuses (422 topic_refused), never the server's settings"
    )
    func requestFieldsRefused() async throws {
        let notForTopic = MockAPNsProcess.token("d4")
        let mock = try await MockAPNsProcess(script: [notForTopic: [["status": 400, "reason": "DeviceTokenNotForTopic"]]])
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let c = server.client()

        let bogus = try await c.postJSON(
            "/v1/pushes", try self.json(["push_id": "pt-1", "tokens": [Self.accepted], "title": "t", "push_type": "bogus"]), headers: server.admin)
        #expect(bogus.status == 400, "\(bogus.text)")
        let bogusError = try #require(try bogus.json()["error"] as? [String: Any])
        #expect(bogusError["field"] as? String == "push_type")
        #expect(
            bogusError["message"] as? String
                == "push_type must be one of APNs' push types (Apple, apns-push-type): alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets, controls; leave it out for alert"
        )
        #expect(try await c.request("GET", "/v1/pushes/pt-1", headers: server.admin).status == 404)

        // APNs refuses the request's topic for the whole batch (TopicDisallowed).
        let evil = try await c.postJSON(
            "/v1/pushes", try self.json(["push_id": "topic-1", "tokens": [Self.accepted], "title": "t", "topic": "evil.topic"]), headers: server.admin)
        #expect(evil.status == 422, "\(evil.text)")
        let evilAnswer = try evil.json()
        let evilError = try #require(evilAnswer["error"] as? [String: Any])
        #expect(evilError["code"] as? String == "topic_refused")
        #expect(evilError["field"] as? String == "topic")
        let evilMessage = evilError["message"] as? String ?? ""
        #expect(evilMessage.hasPrefix("APNs refused the topic \"evil.topic\" this request gave (TopicDisallowed): "), "\(evilMessage)")
        #expect(evilMessage.contains("leave it out to use the server's --apns-topic"), "\(evilMessage)")
        #expect(!evilMessage.contains("server's APNs settings"), "\(evilMessage)")
        #expect(!evilMessage.contains(" --topic"), "\(evilMessage)")
        #expect(evilAnswer["accepted"] as? Int == 0)

        // Every token answered DeviceTokenNotForTopic for the request's topic: the topic is blamed,
        // and the token is not recorded bad (it may be the server's own app's).
        let other = try await c.postJSON(
            "/v1/pushes", try self.json(["push_id": "topic-2", "tokens": [notForTopic], "title": "t", "topic": MockAPNsProcess.topic]),
            headers: server.admin)
        #expect(other.status == 422, "\(other.text)")
        let otherError = try #require(try other.json()["error"] as? [String: Any])
        #expect(otherError["field"] as? String == "topic")
        #expect((otherError["message"] as? String ?? "").contains("(DeviceTokenNotForTopic)"))
        #expect(await server.terminate() == 0)
        let store = try SQLiteStore(path: server.database.path)
        #expect(try store.deviceTokenState(notForTopic) == nil)
        try store.close()
    }

    @Test(
        "serve with some APNs settings but not all, both --apns-sandbox and --apns-url, or a key or team id that is not 10 letters or digits is a usage error (as send); an unreadable key names --apns-key"
    )
    func partialSettingsAtStart() async throws {
        let dir = try Fixtures.temporaryDirectory("serve-apns-settings")
        defer { try? FileManager.default.removeItem(at: dir) }
        func serve(_ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess.Finished {
            try await ChildProcess(
                Fixtures.richpushBinary.path,
                ["serve", "--port", "0", "--db", dir.appendingPathComponent("r.sqlite").path, "--admin-token", ServerProcess.token] + arguments,
                environment: environment
            ).run(timeout: 60)
        }
        let keyOnly = try await serve(["--apns-key", dir.appendingPathComponent("AuthKey_ABC123DEFG.p8").path])
        #expect(keyOnly.status == 64, "\(keyOnly.stderr)")
        #expect(
            keyOnly.stderr.contains("--apns-team-id TEAMID (or RICHPUSH_APNS_TEAM_ID), --apns-topic BUNDLE_ID (or RICHPUSH_APNS_TOPIC)"), "\(keyOnly.stderr)")
        #expect(!keyOnly.stderr.contains("--apns-key-id"), "the key id comes from the file name: \(keyOnly.stderr)")
        #expect(!keyOnly.stdout.contains("PORT"), "it must not start: \(keyOnly.stdout)")
        let fromEnvironment = try await serve([], environment: ["RICHPUSH_APNS_TOPIC": "com.example.app"])
        #expect(fromEnvironment.status == 64)
        #expect(fromEnvironment.stderr.contains("--apns-key FILE (or RICHPUSH_APNS_KEY)"), "\(fromEnvironment.stderr)")

        let both = try await serve([
            "--apns-key", dir.appendingPathComponent("AuthKey_ABC123DEFG.p8").path, "--apns-team-id", "DEF123GHIJ", "--apns-topic", "com.example.app",
            "--apns-sandbox", "--apns-url", "https://127.0.0.1:1",
        ])
        #expect(both.status == 64, "\(both.stderr)")
        #expect(both.stderr.contains("give either '--apns-sandbox' (Apple's sandbox) or '--apns-url URL' (another endpoint), not both"), "\(both.stderr)")
        let shortTeam = try await serve([
            "--apns-key", dir.appendingPathComponent("AuthKey_ABC123DEFG.p8").path, "--apns-team-id", "T", "--apns-topic", "com.example.app",
        ])
        #expect(shortTeam.status == 64, "\(shortTeam.stderr)")
        #expect(shortTeam.stderr.contains("'--apns-team-id T' is not 10 letters or digits"), "\(shortTeam.stderr)")
        let shortKeyID = try await serve([
            "--apns-key", dir.appendingPathComponent("AuthKey_ABC123DEFG.p8").path, "--apns-key-id", "K1", "--apns-team-id", "DEF123GHIJ",
            "--apns-topic", "com.example.app",
        ])
        #expect(shortKeyID.status == 64, "\(shortKeyID.stderr)")
        #expect(shortKeyID.stderr.contains("the APNs key id 'K1' is not 10 letters or digits"), "\(shortKeyID.stderr)")

        let missingKey = dir.appendingPathComponent("nonexistent/AuthKey_ABC123DEFG.p8").path
        let noFile = try await serve(["--apns-key", missingKey, "--apns-team-id", "DEF123GHIJ", "--apns-topic", "com.example.app"])
        #expect(noFile.status == 1)
        #expect(
            noFile.stderr.contains("cannot read the APNs key \(missingKey) given to --apns-key (or RICHPUSH_APNS_KEY): no such file; check the path"),
            "\(noFile.stderr)")
        #expect(!noFile.stderr.contains("--key "), "\(noFile.stderr)")
        #expect(!noFile.stderr.contains("could not be completed"), "\(noFile.stderr)")
        let notAKey = dir.appendingPathComponent("AuthKey_ABC123DEFG.p8")
        try Data("not a key".utf8).write(to: notAKey)
        let bad = try await serve(["--apns-key", notAKey.path, "--apns-team-id", "DEF123GHIJ", "--apns-topic", "com.example.app"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("the APNs key given to --apns-key (or RICHPUSH_APNS_KEY): AuthKey_ABC123DEFG.p8 is not"), "\(bad.stderr)")
    }

    @Test("end to end: article 000 sent through POST /v1/pushes, its receipt from richpush simulate lands, display rate 1.0 on the API and the dashboard")
    func endToEnd() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let media = try await MediaServer.get()
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let c = server.client()
        let dir = try Fixtures.temporaryDirectory("serve-e2e")
        defer { try? FileManager.default.removeItem(at: dir) }

        // 1. Send article 000's payload as is (its push_id 2018001 sits in aps.alert).
        let original = try JSONSerialization.jsonObject(with: try Fixtures.payload("seed000-image-and-stats.json"))
        // Its media host is not reachable from here ("media": "off"); the device side below gets
        // the image from the local media server (SendMediaCheckTests runs the check itself).
        let sent = try await c.postJSON(
            "/v1/pushes", try self.json(["tokens": [Self.accepted], "payload": original, "media": "off"]), headers: server.admin)
        #expect(sent.status == 200, "\(sent.text)")
        #expect(try sent.json()["push_id"] as? String == "2018001")

        // 2. The device side: the same payload, its image on the local media server.
        var text = String(decoding: try Fixtures.payload("seed000-image-and-stats.json"), as: UTF8.self)
        let range = try #require(text.range(of: #"https://[^"]+"#, options: .regularExpression))
        text.replaceSubrange(range, with: media.url("/media/photo.jpg"))
        let payload = dir.appendingPathComponent("payload.json")
        try Data(text.utf8).write(to: payload)
        let run = try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "simulate", payload.path, "--allow-http-host", "127.0.0.1",
                "--receipts-url", "http://127.0.0.1:\(server.port)/v1/receipts", "--out", dir.appendingPathComponent("out").path, "--json",
            ]
        ).run(timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")

        // 3. The figures.
        let push = try await server.push("2018001")
        #expect(push["sent"] as? Int == 1)
        #expect(push["accepted"] as? Int == 1)
        #expect(push["delivered"] as? Int == 1)
        #expect(push["display_rate"] as? Double == 1.0)
        #expect(push["outcomes"] as? [String: Int] == ["media_attached": 1])
        #expect(push["media_bytes"] as? Int == 89_696)
        let dashboard = try await c.request("GET", "/", headers: server.admin)
        #expect(dashboard.status == 200)
        #expect(dashboard.text.contains("2018001"))
        #expect(await server.terminate() == 0)
    }
}
