import Foundation
import RichPushCore
import RichPushServer
import RichPushTestSupport
import Testing

/// Issue 11: a display rate for every push, whatever sent it: FCM through `POST /v1/pushes`,
/// sends recorded from elsewhere, the token lifecycle, `user_ids`, and the payload bytes that
/// reach the provider. All against the built `richpush serve` and the project's mocks.
@Suite("display rate for every push", .serialized)
struct EveryProviderFunnelTests {
    static let accepted = MockAPNsProcess.token("a1")
    static let gone = MockAPNsProcess.token("b2")

    func json(_ body: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    /// Runs `richpush simulate` on a payload, its receipt to the server.
    func simulate(_ payload: RichPushJSONValue, server: ServerProcess, in dir: URL, name: String) async throws {
        let file = dir.appendingPathComponent("\(name).json")
        try payload.jsonData().write(to: file)
        let run = try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "simulate", file.path, "--allow-http-host", "127.0.0.1", "--receipts-url", "http://127.0.0.1:\(server.port)/v1/receipts",
                "--out", dir.appendingPathComponent("out-\(name)").path, "--state", dir.appendingPathComponent("state-\(name)").path,
            ]
        ).run(timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test("a push sent through FCM by POST /v1/pushes and its receipt from simulate give a display rate")
    func fcmThroughTheServer() async throws {
        let fcm = try await MockFCMProcess()
        defer { fcm.stop() }
        let media = try await MediaServer.get()
        let server = try await ServerProcess(extraArguments: ["--fcm-service-account", fcm.serviceAccountFile.path, "--fcm-url", fcm.endpoint])
        let dir = try Fixtures.temporaryDirectory("serve-fcm")
        defer { try? FileManager.default.removeItem(at: dir) }
        let c = server.client()
        // Article 001's push, in FCM HTTP v1 form: no APNs settings on this server, FCM is the default.
        let body = try json([
            "push_id": "fcm-001", "tokens": ["fcm-device-1:APA91b", "unregistered-9"], "title": "Push通知テスト",
            "image": media.url("/media/photo.jpg").replacingOccurrences(of: "http://", with: "https://"),
            // The URL only has to pass the lint here (https); the device side fetches it over http.
            "media": "off",
        ])
        let sent = try await c.postJSON("/v1/pushes", body, headers: server.admin)
        #expect(sent.status == 200, "\(sent.text)")
        let answer = try sent.json()
        #expect(answer["sent"] as? Int == 2)
        #expect(answer["accepted"] as? Int == 1)
        let results = try #require(answer["results"] as? [[String: Any]])
        #expect(results.allSatisfy { $0["provider"] as? String == "fcm" })
        #expect(results.contains { $0["outcome"] as? String == "token_inactive" && $0["reason"] as? String == "UNREGISTERED" })
        #expect(results.contains { ($0["message_id"] as? String)?.hasPrefix("projects/demo-project/messages/") == true })

        // What the iOS device got from FCM (apns.payload plus gcm.message_id), its image on the local server.
        var delivered = try #require(try await fcm.stats()["last_delivered"])
        #expect(delivered["push_id"] == .string("fcm-001"))
        #expect(delivered["aps"]?["mutable-content"] == .int(1))
        delivered = delivered.setting(.string(media.url("/media/photo.jpg")), at: "image-url")
        try await simulate(delivered, server: server, in: dir, name: "fcm")

        let push = try await server.push("fcm-001")
        #expect(push["sent"] as? Int == 2)
        #expect(push["accepted"] as? Int == 1)
        #expect(push["delivered"] as? Int == 1)
        #expect(push["display_rate"] as? Double == 1.0)
        #expect(push["sources"] as? [String] == ["fcm"])
        // The dashboard names where the figures came from.
        let dashboard = try await c.request("GET", "/", headers: server.admin)
        #expect(dashboard.text.contains(">FCM<"), "\(dashboard.text.prefix(200))")
        #expect(await server.terminate() == 0)
    }

    @Test("sends recorded for a push sent elsewhere, plus receipts, give the funnel; a batch is counted once")
    func recordedSends() async throws {
        let server = try await ServerProcess()
        let c = server.client()
        let path = "/v1/pushes/os-7f3a/sends"
        let batch = try json(["batch_id": "b-1", "source": "onesignal", "sent": 1200, "accepted": 1180, "title": "Spring sale"])
        #expect(try await c.postJSON(path, batch).status == 401)
        let first = try await c.postJSON(path, batch, headers: server.admin)
        #expect(first.status == 200, "\(first.text)")
        #expect(try first.json()["recorded"] as? Bool == true)
        // A retry of the same batch is not counted twice; the same id with other figures is a conflict.
        let again = try await c.postJSON(path, batch, headers: server.admin)
        #expect(again.status == 200)
        #expect(try again.json()["duplicate"] as? Bool == true)
        let conflict = try await c.postJSON(path, try json(["batch_id": "b-1", "source": "onesignal", "sent": 1300, "accepted": 1180]), headers: server.admin)
        #expect(conflict.status == 409)
        #expect((try conflict.json()["error"] as? [String: Any])?["code"] as? String == "batch_conflict")
        #expect(
            try await c.postJSON(path, try json(["batch_id": "b-2", "source": "onesignal", "sent": 10, "accepted": 10]), headers: server.admin).status == 200)

        for i in 0..<95 {
            #expect(try await c.post("/v1/receipts", form: "push_id=os-7f3a&receipt_id=d\(i)&outcome=media_attached").status == 202)
        }
        for i in 0..<30 {
            #expect(try await c.post("/v1/receipts", form: "push_id=os-7f3a&receipt_id=d\(i)&event=opened").status == 202)
        }
        let push = try await server.push("os-7f3a")
        #expect(push["sent"] as? Int == 1210)
        #expect(push["accepted"] as? Int == 1190)
        #expect(push["delivered"] as? Int == 95)
        #expect(push["opened"] as? Int == 30)
        #expect(abs((push["display_rate"] as? Double ?? 0) - 95.0 / 1190.0) < 1e-12)
        #expect(push["sources"] as? [String] == ["onesignal"])
        let dashboard = try await c.request("GET", "/", headers: server.admin)
        #expect(dashboard.text.contains("onesignal"))

        // The same through the command line, from a plain backend's per-token results.
        let dir = try Fixtures.temporaryDirectory("record-send")
        defer { try? FileManager.default.removeItem(at: dir) }
        let results = dir.appendingPathComponent("results.jsonl")
        try """
        {"token":"\(Self.accepted)","outcome":"accepted","status":200,"apns-id":"x"}
        {"token":"\(Self.gone)","outcome":"token_inactive","status":410,"reason":"Unregistered","timestamp":1700000000000}
        """.write(to: results, atomically: true, encoding: .utf8)
        let run = try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "record-send", "backend-1", "--batch-id", "job-42", "--source", "backend", "--results", results.path,
                "--server", "http://127.0.0.1:\(server.port)",
            ], environment: ["RICHPUSH_ADMIN_TOKEN": ServerProcess.token]
        ).run(timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("recorded push backend-1: sent 2, accepted 1, skipped 0"))
        let rerun = try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "record-send", "backend-1", "--batch-id", "job-42", "--source", "backend", "--results", results.path,
                "--server", "http://127.0.0.1:\(server.port)",
            ], environment: ["RICHPUSH_ADMIN_TOKEN": ServerProcess.token]
        ).run(timeout: 60)
        #expect(rerun.stdout.contains("already recorded"))
        let backend = try await server.push("backend-1")
        #expect(backend["sent"] as? Int == 2)
        #expect(backend["accepted"] as? Int == 1)
        #expect(await server.terminate() == 0)

        // The backend's 410 went into the token lifecycle.
        let store = try SQLiteStore(path: server.database.path)
        #expect(try store.skippedTokens(among: [Self.gone, Self.accepted]).keys.sorted() == [Self.gone])
        #expect(try store.skippedTokens(among: [Self.gone])[Self.gone]?.sinceMs == 1_700_000_000_000)
        try store.close()
    }

    @Test("a 410'd token is skipped on the next send, and sent again after it registers anew")
    func tokenLifecycle() async throws {
        let mock = try await MockAPNsProcess(script: [Self.gone: [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000], ["status": 200]]])
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let c = server.client()
        let body = try json(["push_id": "life-1", "tokens": [Self.accepted, Self.gone], "title": "t", "body": "b"])
        let first = try await c.postJSON("/v1/pushes", body, headers: server.admin)
        #expect(first.status == 200, "\(first.text)")
        #expect(try first.json()["skipped"] as? Int == 0)

        let second = try await c.postJSON(
            "/v1/pushes", try json(["push_id": "life-2", "tokens": [Self.accepted, Self.gone], "title": "t", "body": "b"]), headers: server.admin)
        let answer = try second.json()
        #expect(answer["sent"] as? Int == 1)
        #expect(answer["skipped"] as? Int == 1)
        let skipped = try #require((answer["results"] as? [[String: Any]])?.first { $0["token"] as? String == Self.gone })
        #expect(skipped["outcome"] as? String == "skipped")
        #expect((skipped["message"] as? String ?? "").contains("2023-11-14T22:13:20"))
        #expect(try await mock.stats()["per_token"]?[Self.gone] == .int(1))
        let stats = try await server.push("life-2")
        #expect(stats["skipped"] as? Int == 1)
        #expect(stats["sent"] as? Int == 1)

        // The app registers the token again (after APNs' timestamp): it is sent to again.
        let registered = try await c.postJSON("/v1/devices", try json(["token": Self.gone.uppercased(), "platform": "ios", "app_version": "2.4.1 (812)"]))
        #expect(registered.status == 201, "\(registered.text)")
        #expect(try registered.json()["provider"] as? String == "apns")
        let third = try await c.postJSON(
            "/v1/pushes", try json(["push_id": "life-3", "tokens": [Self.gone], "title": "t", "body": "b"]), headers: server.admin)
        #expect(try third.json()["accepted"] as? Int == 1)
        #expect(try third.json()["skipped"] as? Int == 0)
        #expect(try await mock.stats()["per_token"]?[Self.gone] == .int(2))

        // DELETE: the app removed its registration; the token is skipped until it registers again.
        #expect(try await c.request("DELETE", "/v1/devices/\(Self.gone)").status == 200)
        let fourth = try await c.postJSON(
            "/v1/pushes", try json(["push_id": "life-4", "tokens": [Self.gone], "title": "t", "body": "b"]), headers: server.admin)
        #expect(try fourth.json()["skipped"] as? Int == 1)
        #expect(await server.terminate() == 0)
    }

    @Test("user_ids reach the devices registered for them, bound by the admin token or an HMAC user_hash")
    func userIDs() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let fcm = try await MockFCMProcess()
        defer { fcm.stop() }
        let secret = "device-secret-0123456789abcdef"
        let server = try await ServerProcess(
            extraArguments: mock.serveArguments() + [
                "--fcm-service-account", fcm.serviceAccountFile.path, "--fcm-url", fcm.endpoint, "--device-secret", secret,
            ])
        let c = server.client()
        let iphone = MockAPNsProcess.token("c1"), pixel = "fcm-pixel-1:APA91b"
        // The backend registers on the user's behalf with the admin token.
        #expect(try await c.postJSON("/v1/devices", try json(["token": iphone, "platform": "ios", "user_id": "u-42"]), headers: server.admin).status == 201)
        // The app registers itself with the user_hash its backend computed (Python's hmac here).
        let hash = try await ChildProcess(
            "python3",
            ["-c", "import hmac,hashlib,sys; print(hmac.new(sys.argv[1].encode(), sys.argv[2].encode(), hashlib.sha256).hexdigest())", secret, "u-42"]
        ).run(timeout: 30)
        let userHash = hash.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let withHash = try await c.postJSON("/v1/devices", try json(["token": pixel, "platform": "android", "user_id": "u-42", "user_hash": userHash]))
        #expect(withHash.status == 201, "\(withHash.text)")
        #expect(try withHash.json()["provider"] as? String == "fcm")
        // Without proof, or with the wrong proof, or with the dashboard cookie alone: refused.
        let noProof = try await c.postJSON("/v1/devices", try json(["token": MockAPNsProcess.token("d1"), "platform": "ios", "user_id": "u-42"]))
        #expect(noProof.status == 403)
        let wrong = try await c.postJSON(
            "/v1/devices",
            try json(["token": MockAPNsProcess.token("d1"), "platform": "ios", "user_id": "u-42", "user_hash": String(repeating: "0", count: 64)]))
        #expect(wrong.status == 403)
        let login = try await c.post("/login", form: "token=\(ServerProcess.token)", headers: ["Origin": server.origin])
        let cookie = try #require(login.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let viaCookie = try await c.postJSON(
            "/v1/devices", try json(["token": MockAPNsProcess.token("d1"), "platform": "ios", "user_id": "u-42"]), headers: ["Cookie": cookie])
        #expect(viaCookie.status == 403)

        let push = try await c.postJSON(
            "/v1/pushes", try json(["push_id": "u-1", "user_ids": ["u-42", "nobody"], "title": "t", "body": "b"]), headers: server.admin)
        #expect(push.status == 200, "\(push.text)")
        let answer = try push.json()
        #expect(answer["accepted"] as? Int == 2)
        #expect(answer["users_without_devices"] as? [String] == ["nobody"])
        let byToken = Dictionary(
            uniqueKeysWithValues: (answer["results"] as? [[String: Any]] ?? []).map { ($0["token"] as? String ?? "", $0["provider"] as? String ?? "") })
        #expect(byToken == [iphone: "apns", pixel: "fcm"])
        let stats = try await server.push("u-1")
        #expect(stats["sources"] as? [String] == ["apns", "fcm"])
        #expect(await server.terminate() == 0)
    }

    @Test("POST /v1/devices is hostile territory: every bad field, type, size and body is refused with what is wrong")
    func devicesRefuseBadInput() async throws {
        let server = try await ServerProcess()
        let c = server.client()
        let token = MockAPNsProcess.token("e1")
        let cases: [(String, Int, String)] = [
            ("{}", 400, "token"),
            (#"{"token": "\#(token)"}"#, 400, "platform"),
            (#"{"token": "\#(token)", "platform": "symbian"}"#, 400, "platform"),
            (#"{"token": "\#(token)", "platform": "ios", "colour": "red"}"#, 400, "colour"),
            (#"{"token": 12345, "platform": "ios"}"#, 400, "token"),
            (#"{"token": "abc", "platform": "ios", "provider": "apns"}"#, 400, "token"),
            (#"{"token": "has space", "platform": "android"}"#, 400, "token"),
            (#"{"token": "\#(String(repeating: "x", count: 1025))", "platform": "android"}"#, 400, "token"),
            (#"{"token": "\#(token)", "platform": "ios", "provider": "hms"}"#, 400, "provider"),
            (#"{"token": "\#(token)", "platform": "ios", "app_version": "\#(String(repeating: "9", count: 65))"}"#, 400, "app_version"),
            (#"{"token": "\#(token)", "platform": "ios", "app_version": "1\u0000"}"#, 400, "app_version"),
            (#"{"token": "\#(token)", "platform": "ios", "user_id": ""}"#, 400, "user_id"),
            (#"{"token": "\#(token)", "platform": "ios", "user_hash": "\#(String(repeating: "a", count: 64))"}"#, 400, "user_hash"),
            // A key given twice: 400 duplicate_field naming it, as receipts.
            (#"{"token": "\#(token)", "platform": "ios", "token": "\#(token)"}"#, 400, "token"),
            (#"["\#(token)"]"#, 400, "body"),
            ("not json", 400, "body"),
            (#"{"token": "\ud800", "platform": "ios"}"#, 400, "token"),
        ]
        for (body, status, field) in cases {
            let r = try await c.postJSON("/v1/devices", body)
            #expect(r.status == status, "\(body): \(r.text)")
            #expect((try? r.json()["error"] as? [String: Any])?["field"] as? String == field, "\(body): \(r.text)")
        }
        let form = try await c.post("/v1/devices", form: "token=\(token)&platform=ios")
        #expect(form.status == 415)
        let huge = try await c.postJSON("/v1/devices", #"{"token": "\#(token)", "platform": "ios", "app_version": "\#(String(repeating: "x", count: 9_000))"}"#)
        #expect(huge.status == 413)
        #expect(try await c.request("GET", "/v1/devices").status == 405)
        #expect(try await c.request("DELETE", "/v1/devices/bad%20token").status == 400)
        // Nothing of it was stored; a good registration still works.
        let good = try await c.postJSON("/v1/devices", #"{"token": "\#(token)", "platform": "ios"}"#)
        #expect(good.status == 201)
        #expect(try await c.postJSON("/v1/devices", #"{"token": "\#(token)", "platform": "ios"}"#).status == 200)
        #expect(await server.terminate() == 0)
        let store = try SQLiteStore(path: server.database.path)
        #expect(try store.device(token)?.platform == "ios")
        #expect(try store.devices(ofUsers: [""], limit: 10).isEmpty)
        try store.close()
    }

    @Test("POST /v1/pushes/{id}/sends refuses bad input naming the field")
    func recordedSendsRefuseBadInput() async throws {
        let server = try await ServerProcess()
        let c = server.client()
        let cases: [(String, String)] = [
            (#"{"sent": 1, "accepted": 1}"#, "batch_id"),
            (#"{"batch_id": "b", "sent": 1}"#, "accepted"),
            (#"{"batch_id": "b", "sent": 1, "accepted": 2}"#, "accepted"),
            (#"{"batch_id": "b", "sent": -1, "accepted": 0}"#, "sent"),
            (#"{"batch_id": "b", "sent": 18446744073709551615, "accepted": 0}"#, "sent"),
            (#"{"batch_id": "b", "sent": 1.5, "accepted": 0}"#, "sent"),
            (#"{"batch_id": "b", "sent": 1, "accepted": 1, "source": "One Signal"}"#, "source"),
            (#"{"batch_id": "b", "results": []}"#, "results"),
            (#"{"batch_id": "b", "results": [{"token": "t"}]}"#, "results"),
            (#"{"batch_id": "b", "results": [{"token": "t", "outcome": "delivered"}]}"#, "results"),
            (#"{"batch_id": "b", "results": [{"token": "t", "outcome": "accepted", "status": 9999}]}"#, "results"),
            (#"{"batch_id": "b", "results": [{"token": "t", "outcome": "accepted"}], "sent": 1}"#, "results"),
            (#"{"batch_id": "b", "sent": 1, "accepted": 1, "extra": true}"#, "extra"),
        ]
        for (body, field) in cases {
            let r = try await c.postJSON("/v1/pushes/p/sends", body, headers: server.admin)
            #expect(r.status == 400, "\(body): \(r.text)")
            #expect((try? r.json()["error"] as? [String: Any])?["field"] as? String == field, "\(body): \(r.text)")
        }
        #expect(try await c.request("GET", "/v1/pushes/p/sends", headers: server.admin).status == 405)
        #expect(try await c.request("GET", "/v1/pushes/p", headers: server.admin).status == 404)
        #expect(await server.terminate() == 0)
    }

    @Test("the payload reaches APNs through POST /v1/pushes byte for byte (u64, 1e400, 0.1000, U+FEFF, a lone surrogate)")
    func losslessPayload() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let payload = #"{"aps":{"alert":{"body":"\#u{FEFF}b\ud800","title":"t"}},"big":18446744073709551615,"d":0.1000,"e":1e400,"push_id":"exact-1"}"#
        let body = #"{"tokens":["\#(Self.accepted)"],"payload":"# + payload + "}"
        let r = try await server.client().postJSON("/v1/pushes", body, headers: server.admin)
        #expect(r.status == 200, "\(r.text)")
        let sent = try #require(try await mock.stats()["last_body_b64"]?.stringValue.flatMap { Data(base64Encoded: $0) })
        #expect(String(decoding: sent, as: UTF8.self) == payload)
        #expect(await server.terminate() == 0)
    }
}
