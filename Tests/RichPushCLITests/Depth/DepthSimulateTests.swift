import Foundation
import RichPushTestSupport
import Testing

/// Issue 6 through `richpush simulate`, with real servers on 127.0.0.1 and the built binary.
@Suite("Extension depth through richpush simulate", .serialized)
struct DepthSimulateTests {
    static let key = Data((0..<32).map { UInt8(($0 * 29 + 11) % 256) })

    /// A scratch folder with a key file.
    final class Scratch {
        let dir: URL
        let keys: URL
        init() throws {
            dir = try Fixtures.temporaryDirectory("richpush-depth")
            keys = dir.appendingPathComponent("keys.json")
            try Data(#"{"k-2": "\#(DepthSimulateTests.key.base64EncodedString())"}"#.utf8).write(to: keys)
        }
        deinit { try? FileManager.default.removeItem(at: dir) }

        func write(_ name: String, _ json: Any) throws -> URL {
            let url = dir.appendingPathComponent(name)
            try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: url)
            return url
        }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    }

    static var genericAlert: [String: Any] { ["aps": ["alert": ["title": "Shop", "body": "New message"], "mutable-content": 1]] }

    /// `richpush encrypt` → the full payload (generic alert + `enc`).
    static func encrypt(_ plaintext: [String: Any], in scratch: Scratch) async throws -> [String: Any] {
        let pt = try scratch.write("pt-\(UUID().uuidString).json", plaintext)
        let base = try scratch.write("base.json", genericAlert)
        let arguments = ["encrypt", "--key", scratch.keys.path, "--kid", "k-2", pt.path, "--payload", base.path]
        let result = try await ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: 60)
        guard result.status == 0, let payload = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw TestSupportError("encrypt failed: \(result.stderr)")
        }
        return payload
    }

    struct Simulated: @unchecked Sendable {
        let status: Int32
        let json: [String: Any]
        let stdout: String
        let stderr: String
        var content: [String: Any] { json["content"] as? [String: Any] ?? [:] }
        var details: [String: Any] { json["details"] as? [String: Any] ?? [:] }
        var media: [String: Any] { details["media"] as? [String: Any] ?? [:] }
        var receipt: [String: Any] { json["receipt"] as? [String: Any] ?? [:] }
        var attachments: [[String: Any]] { content["attachments"] as? [[String: Any]] ?? [] }
        /// The structured log line on stderr (the line prefixed `richpush.log `).
        var logLine: [String: Any]? {
            stderr.split(separator: "\n").lazy.filter { $0.hasPrefix("richpush.log ") }.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.dropFirst("richpush.log ".count).utf8)) as? [String: Any]
            }.first { $0["event"] as? String == "richpush.notification" }
        }
    }

    static func simulateArguments(_ payload: URL, _ extra: [String]) -> [String] {
        ["simulate", payload.path, "--json", "--allow-http-host", "127.0.0.1"] + extra
    }

    static func simulate(_ payload: URL, _ extra: [String] = []) async throws -> Simulated {
        let arguments = simulateArguments(payload, extra)
        let result = try await ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: 90)
        return try parse(result.status, result.stdout, result.stderr)
    }

    static func parse(_ status: Int32, _ stdout: String, _ stderr: String) throws -> Simulated {
        guard let line = stdout.split(separator: "\n").first,
            let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { throw TestSupportError("simulate printed no JSON (status \(status)): \(stdout) \(stderr)") }
        return Simulated(status: status, json: json, stdout: stdout, stderr: stderr)
    }

    /// Several simulate runs at once.
    static func simulateConcurrently(_ runs: [(URL, [String])]) async throws -> [Simulated] {
        let argumentLists = runs.map { simulateArguments($0.0, $0.1) }
        return try await ChildProcess.runAll(argumentLists.map { (Fixtures.richpushBinary.path, $0) }, timeout: 90).map {
            try parse($0.status, $0.stdout, $0.stderr)
        }
    }

    // MARK: - 1. Encrypted payloads

    @Test func aValidEnvelopeShowsTheDecryptedTextAndAttachesTheMediaItNames() async throws {
        let scratch = try Scratch()
        let server = try await DepthServer.start()
        // Killed when released at the end (DepthServer.deinit): nothing blocks the pool.
        defer { withExtendedLifetime(server) {} }
        let payload = try await Self.encrypt(
            ["title": "注文が発送されました", "body": "Order 1042 shipped", "media-url": "\(server.base)/media/photo.jpg", "push_id": "enc-ok"],
            in: scratch)
        let file = try scratch.write("payload.json", payload)
        let run = try await Self.simulate(file, ["--keys", scratch.keys.path, "--out", scratch.path("out")])
        #expect(run.status == 0)
        #expect(run.json["outcome"] as? String == "media_attached")
        #expect(run.json["pushId"] as? String == "enc-ok")
        #expect(run.content["title"] as? String == "注文が発送されました")
        #expect(run.content["body"] as? String == "Order 1042 shipped")
        #expect(run.attachments.first?["type"] as? String == "public.jpeg")
        #expect(run.attachments.first?["bytes"] as? Int == 89_696)
        #expect(run.details["decryption"] as? String == "decrypted")
        // The log line has the metrics and none of the text or the ciphertext.
        let log = try #require(run.logLine)
        #expect(log["push_id"] as? String == "enc-ok")
        #expect(log["outcome"] as? String == "media_attached")
        #expect(log["bytes"] as? Int == 89_696)
        #expect(log["total_ms"] is Int && log["fetch_ms"] is Int)
        let ct = try #require((payload["enc"] as? [String: Any])?["ct"] as? String)
        for secret in ["Order 1042", "注文", ct, "photo.jpg", Self.key.base64EncodedString()] {
            #expect(!run.stderr.contains(secret), "log leaks \(secret)")
        }
    }

    /// Every failure kind: the generic alert, reason decrypt_failed, the sub-reason in the log,
    /// no request for the media only the plaintext named, no ciphertext anywhere in the output.
    @Test(arguments: ["unknown_kid", "bad_tag", "truncated", "bad_base64", "bad_json"])
    func aBrokenEnvelopeKeepsTheServersAlertAndSaysWhy(kind: String) async throws {
        let scratch = try Scratch()
        let server = try await DepthServer.start()
        // Killed when released at the end (DepthServer.deinit): nothing blocks the pool.
        defer { withExtendedLifetime(server) {} }
        var payload = try await Self.encrypt(
            ["title": "Secret", "body": "Secret body", "media-url": "\(server.base)/media/photo.jpg", "push_id": "enc-bad"], in: scratch)
        var enc = try #require(payload["enc"] as? [String: Any])
        switch kind {
        case "unknown_kid":
            enc["kid"] = "k-9"
        case "bad_tag":
            var tag = try #require(Data(base64Encoded: enc["tag"] as? String ?? ""))
            tag[0] ^= 0xff
            enc["tag"] = tag.base64EncodedString()
        case "truncated":
            let tag = try #require(Data(base64Encoded: enc["tag"] as? String ?? ""))
            enc["tag"] = tag.prefix(10).base64EncodedString()
        case "bad_base64":
            enc["ct"] = "**not-base64**"
        default:
            // A valid envelope whose plaintext is not JSON, made by Python's cryptography.
            let script = """
                import sys, json, base64, os
                from cryptography.hazmat.primitives.ciphers.aead import AESGCM
                iv = os.urandom(12); out = AESGCM(base64.b64decode(sys.argv[1])).encrypt(iv, b"title=Secret", None)
                print(json.dumps({"v": 1, "kid": "k-2", "iv": base64.b64encode(iv).decode(), "ct": base64.b64encode(out[:-16]).decode(), "tag": base64.b64encode(out[-16:]).decode()}))
                """
            let keyText = Self.key.base64EncodedString()
            let made = try await ChildProcess("python3", ["-c", script, keyText]).run(timeout: 60)
            enc = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any], "\(made.stderr)")
        }
        payload["enc"] = enc
        let file = try scratch.write("payload.json", payload)
        let run = try await Self.simulate(file, ["--keys", scratch.keys.path])
        #expect(run.status == 0)
        #expect(run.json["outcome"] as? String == "text_only")
        #expect(run.json["reason"] as? String == "decrypt_failed")
        #expect(run.content["title"] as? String == "Shop")
        #expect(run.content["body"] as? String == "New message")
        #expect(run.attachments.isEmpty)
        #expect(run.details["decryption"] as? String == kind)
        #expect(run.logLine?["reason"] as? String == "decrypt_failed")
        #expect(run.logLine?["detail"] as? String == kind)
        #expect(try await server.mediaRequests() == 0)
        let ct = enc["ct"] as? String ?? "--"
        #expect(!run.stdout.contains(ct) && !run.stderr.contains(ct))
        #expect(!run.stdout.contains("Secret"))
    }

    @Test func theDecryptedTextIsShownWhenTheMediaThenStalls() async throws {
        let scratch = try Scratch()
        let server = try await DepthServer.start()
        // Killed when released at the end (DepthServer.deinit): nothing blocks the pool.
        defer { withExtendedLifetime(server) {} }
        let payload = try await Self.encrypt(
            ["title": "Decrypted title", "body": "Decrypted body", "media-url": "\(server.base)/stall", "push_id": "enc-stall"], in: scratch)
        let started = Date()
        let run = try await Self.simulate(try scratch.write("payload.json", payload), ["--keys", scratch.keys.path, "--deadline", "1"])
        // At the 1 s deadline, not at the host's 30 s budget (the server never answers).
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(run.json["outcome"] as? String == "text_only")
        #expect(run.json["reason"] as? String == "timeout")
        #expect(run.content["title"] as? String == "Decrypted title")
        #expect(run.content["body"] as? String == "Decrypted body")
    }

    // MARK: - 2. Media cache

    @Test func aCacheHitAttachesWithTheMediaServerStoppedAndNoStoreIsFetchedAgain() async throws {
        let scratch = try Scratch()
        let server = try await DepthServer.start()
        let cache = scratch.path("cache")
        let cached = try scratch.write(
            "cached.json", ["aps": ["alert": "hi", "mutable-content": 1], "media-url": "\(server.base)/media/logo.png?cc=max-age%3D600"])
        let noStore = try scratch.write(
            "nostore.json", ["aps": ["alert": "hi", "mutable-content": 1], "media-url": "\(server.base)/media/anim.gif?cc=no-store"])
        let first = try await Self.simulate(cached, ["--cache", cache])
        #expect(first.json["outcome"] as? String == "media_attached")
        #expect(first.media["cacheHits"] as? Int == 0)
        _ = try await Self.simulate(noStore, ["--cache", cache])
        _ = try await Self.simulate(noStore, ["--cache", cache])
        #expect(try await server.mediaRequests() == 3)
        await server.stopped()

        let hit = try await Self.simulate(cached, ["--cache", cache, "--out", scratch.path("out")])
        #expect(hit.json["outcome"] as? String == "media_attached")
        #expect(hit.media["cacheHits"] as? Int == 1)
        #expect(hit.attachments.first?["type"] as? String == "public.png")
        let file = try #require(hit.attachments.first?["file"] as? String)
        #expect(file.hasPrefix(scratch.path("out")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(contentsOf: Fixtures.media("logo.png")))
        let missed = try await Self.simulate(noStore, ["--cache", cache])
        #expect(missed.json["outcome"] as? String == "text_only")
        #expect(missed.json["reason"] as? String == "network")
    }

    @Test func twoConcurrentRunsFillTheCacheAndBothAreServedFromItLater() async throws {
        let scratch = try Scratch()
        let server = try await DepthServer.start()
        let cache = scratch.path("cache")
        let a = try scratch.write(
            "a.json",
            [
                "aps": ["alert": "a", "mutable-content": 1],
                "media-url": ["photo.jpg", "logo.png", "anim.gif"].map { "\(server.base)/media/\($0)" },
            ])
        let b = try scratch.write(
            "b.json",
            [
                "aps": ["alert": "b", "mutable-content": 1],
                "media-url": ["progressive.jpg", "chime.mp3", "logo.png"].map { "\(server.base)/media/\($0)" },
            ])
        let filling = try await Self.simulateConcurrently([(a, ["--cache", cache]), (b, ["--cache", cache])])
        #expect(filling.map { $0.media["attached"] as? Int } == [3, 3])
        await server.stopped()
        let served = try await Self.simulateConcurrently([(a, ["--cache", cache]), (b, ["--cache", cache])])
        #expect(served.map { $0.json["outcome"] as? String } == ["media_attached", "media_attached"])
        #expect(served.map { $0.media["cacheHits"] as? Int } == [3, 3])
        #expect(served[1].attachments.map { $0["type"] as? String } == ["public.jpeg", "public.mp3", "public.png"])
        let index =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cache).appendingPathComponent("index.json"))) as? [[String: Any]]
        #expect(index?.count == 5)
    }

    // MARK: - 3. Receipts

    @Test func aReceiptQueuedWhileTheServerIsDownArrivesExactlyOnceOnALaterRun() async throws {
        let scratch = try Scratch()
        // A port held for the test with nothing listening yet: the receipts URL refuses
        // connections, and no other test's server can take the port before this one's starts.
        let reservation = try PortReservation()
        defer { withExtendedLifetime(reservation) {} }
        let port = reservation.port
        let receipts = ["--receipts-url", "http://127.0.0.1:\(port)/v1/receipts", "--state", scratch.path("state")]
        let first = try scratch.write("first.json", ["aps": ["alert": "one", "mutable-content": 1], "push_id": "down-1"])
        let second = try scratch.write("second.json", ["aps": ["alert": "two", "mutable-content": 1], "push_id": "up-2"])

        let down = try await Self.simulate(first, receipts)
        #expect(down.receipt["status"] as? String == "failed")
        let server = try await DepthServer.start(port: port)
        // Killed when released at the end (DepthServer.deinit): nothing blocks the pool.
        defer { withExtendedLifetime(server) {} }
        try await Task.sleep(for: .milliseconds(1_200))  // the first retry's backoff is at most 1 s
        let up = try await Self.simulate(second, receipts)
        #expect(up.receipt["status"] as? String == "sent")
        let again = try await Self.simulate(first, receipts)
        #expect(again.receipt["status"] as? String == "duplicate")
        _ = try await Self.simulate(second, receipts)

        let received = try await server.received()
        #expect(received.compactMap { $0["push_id"] }.sorted() == ["down-1", "up-2"])
        let ids = Set(received.compactMap { $0["receipt_id"] })
        #expect(ids.count == 2)
        #expect(ids.allSatisfy { $0.count == 32 })
    }

    @Test func theSamePushProcessedTwiceSendsOneReceipt() async throws {
        let scratch = try Scratch()
        let server = try await DepthServer.start()
        // Killed when released at the end (DepthServer.deinit): nothing blocks the pool.
        defer { withExtendedLifetime(server) {} }
        let payload = try scratch.write("p.json", ["aps": ["alert": "x", "mutable-content": 1], "push_id": "twice"])
        let args = ["--receipts-url", "\(server.base)/v1/receipts", "--state", scratch.path("state")]
        let runs = [try await Self.simulate(payload, args), try await Self.simulate(payload, args)]
        #expect(runs.map { $0.receipt["status"] as? String } == ["sent", "duplicate"])
        #expect(try await server.received().count == 1)
    }

    // MARK: - 4. Badge

    @Test func fiveConcurrentBadgeIncrementsAddFive() async throws {
        let scratch = try Scratch()
        let state = scratch.path("state")
        let payloads = try (0..<5).map { i in
            try scratch.write("b\(i).json", ["aps": ["alert": "b", "badge": 99, "mutable-content": 1], "push_id": "badge-\(i)", "badge_op": "inc"])
        }
        let runs = try await Self.simulateConcurrently(payloads.map { ($0, ["--state", state]) })
        #expect(Set(runs.compactMap { $0.content["badge"] as? Int }) == Set(1...5))
        let count = try String(contentsOfFile: "\(state)/badge.count", encoding: .utf8)
        #expect(count.trimmingCharacters(in: .whitespacesAndNewlines) == "5")
        // Without a shared container the server's badge stays, and the log says why.
        let plain = try await Self.simulate(payloads[0])
        #expect(plain.content["badge"] as? Int == 99)
        #expect(plain.logLine?["detail"] as? String == "badge_no_container")
    }

    // MARK: - 5. Buttons, thumbnails, several attachments

    @Test func buttonsThumbnailOptionsAndSeveralAttachmentsAreInTheJSON() async throws {
        let scratch = try Scratch()
        let server = try await DepthServer.start()
        // Killed when released at the end (DepthServer.deinit): nothing blocks the pool.
        defer { withExtendedLifetime(server) {} }
        let payload = try scratch.write(
            "p.json",
            [
                "aps": ["alert": ["title": "t", "body": "b"], "mutable-content": 1],
                "media-url": ["\(server.base)/media/photo.jpg", "\(server.base)/media/missing.jpg", "\(server.base)/media/chime.mp3"],
                "buttons": [
                    ["id": "reply", "title": "Reply", "input": ["button": "Send", "placeholder": "Message"], "icon": "arrowshape.turn.up.left"],
                    ["id": "delete", "title": "Delete", "destructive": true],
                ],
                "thumbnail": ["clip": [0.25, 0, 0.5, 0.5], "time": 1.5, "hidden": false],
            ] as [String: Any])
        let run = try await Self.simulate(payload, ["--out", scratch.path("out")])
        #expect(run.json["outcome"] as? String == "media_attached")
        #expect(run.media["requested"] as? Int == 3)
        #expect(run.media["attached"] as? Int == 2)
        #expect(run.attachments.map { $0["type"] as? String } == ["public.jpeg", "public.mp3"])
        #expect(Set(run.attachments.compactMap { $0["identifier"] as? String }).count == 2)
        let category = try #require(run.details["category"] as? [String: Any])
        let identifier = try #require(category["identifier"] as? String)
        // Media attached: the buttons take a slot of the image category, so a content extension
        // listing image.buttons.1…4 shows the picture with them.
        #expect(["image.buttons.1", "image.buttons.2", "image.buttons.3", "image.buttons.4"].contains(identifier))
        #expect(run.content["categoryIdentifier"] as? String == identifier)
        let buttons = try #require(category["buttons"] as? [[String: Any]])
        #expect(buttons.map { $0["id"] as? String } == ["reply", "delete"])
        #expect((buttons[0]["textInput"] as? [String: Any])?["placeholder"] as? String == "Message")
        #expect(buttons[0]["icon"] as? String == "arrowshape.turn.up.left")
        #expect(buttons[1]["destructive"] as? Bool == true)
        let thumbnail = try #require(run.details["thumbnail"] as? [String: Any])
        let clip = try #require(thumbnail["clippingRect"] as? [String: Double])
        #expect(clip == ["x": 0.25, "y": 0, "width": 0.5, "height": 0.5])
        #expect(thumbnail["time"] as? Double == 1.5)
        #expect(thumbnail["hidden"] as? Bool == false)
    }
}
