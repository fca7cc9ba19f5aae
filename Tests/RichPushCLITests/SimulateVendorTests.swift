import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// `richpush simulate` with vendor payloads, the extension's Info.plist (`--settings`) and the
/// key path options (issue 18).
@Suite("richpush simulate: vendors, --settings, key paths")
struct SimulateVendorTests {
    func richpush(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: 60)
    }

    func object(_ text: String) throws -> [String: Any] {
        let line = try #require(text.split(separator: "\n").first)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// A vendor fixture with its media URL pointed at the local server's photo, in `dir`.
    func vendorPayload(_ fixture: String, server: MediaServer, in dir: URL) throws -> URL {
        let text = String(decoding: try Fixtures.payload("vendors/" + fixture), as: UTF8.self)
            .replacingOccurrences(of: #"https://media\.example\.com/[^"]+"#, with: server.url("/media/photo.jpg"), options: .regularExpression)
        let file = dir.appendingPathComponent(fixture)
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test("a OneSignal payload: its image attached, custom.i as push id, vendor=onesignal in the receipt")
    func oneSignal() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = try vendorPayload("onesignal.json", server: server, in: dir)
        let run = try await richpush([
            "simulate", payload.path, "--allow-http-host", "127.0.0.1", "--receipts-url", server.url("/receipts"), "--out",
            dir.appendingPathComponent("o").path,
            "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try object(run.stdout)
        #expect(json["outcome"] as? String == "media_attached")
        #expect(json["pushId"] as? String == "5f2b3c4d-6e7f-4a8b-9c0d-1e2f3a4b5c6d")
        #expect(json["pushIdKey"] as? String == "custom.i")
        #expect(json["vendor"] as? String == "onesignal")
        let receipt = try #require(json["receipt"] as? [String: Any])
        #expect(receipt["status"] as? String == "sent")
        let bodies = try await server.receipts().filter { $0.hasPrefix("push_id=5f2b3c4d-6e7f-4a8b-9c0d-1e2f3a4b5c6d&") }
        #expect(bodies.count == 1)
        #expect(bodies.first?.contains("&vendor=onesignal") == true)
        #expect(run.stderr.contains(#""vendor":"onesignal""#), "the log line names the vendor: \(run.stderr)")
    }

    @Test("a skipped receipt says why in the summary, the JSON and the log line")
    func skipReasons() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = try vendorPayload("customerio.json", server: server, in: dir)
        let common = [
            "simulate", payload.path, "--allow-http-host", "127.0.0.1", "--receipts-url", server.url("/receipts"), "--out",
            dir.appendingPathComponent("o").path,
        ]
        let summary = try await richpush(common)
        #expect(summary.status == 0, "\(summary.stderr)")
        #expect(summary.stdout.contains("receipt     skipped: per_delivery_id: Customer.io's CIO-Delivery-ID identifies one delivery"), "\(summary.stdout)")
        #expect(summary.stdout.contains("vendor      Customer.io"))
        let json = try await richpush(common + ["--json"])
        let receipt = try #require(try object(json.stdout)["receipt"] as? [String: Any])
        let skip = try #require(receipt["skipReason"] as? [String: Any])
        #expect(skip["code"] as? String == "per_delivery_id")
        #expect((skip["message"] as? String)?.contains("looked at aps.alert.push_id") == true)
        #expect(json.stderr.contains(#""receipt_skip":"per_delivery_id""#), "\(json.stderr)")
        // No receipts URL: that is the reason when the payload has a push id.
        let article = dir.appendingPathComponent("a.json")
        try Data(#"{"aps":{"alert":"Hi","mutable-content":1},"push_id":"p-1"}"#.utf8).write(to: article)
        let noURL = try await richpush(["simulate", article.path, "--json"])
        let noURLReceipt = try #require(try object(noURL.stdout)["receipt"] as? [String: Any])
        #expect((noURLReceipt["skipReason"] as? [String: Any])?["code"] as? String == "no_receipts_url")
    }

    @Test("--media-key is tried before the defaults, as MediaKeyPaths; --replace-media-keys uses only it")
    func mediaKeySemantics() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = dir.appendingPathComponent("p.json")
        try Data(#"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},"image-url":"\#(server.url("/media/logo.png"))"}"#.utf8).write(to: payload)
        let common = ["simulate", payload.path, "--allow-http-host", "127.0.0.1", "--out", dir.appendingPathComponent("o").path, "--json"]
        // Before issue 18 --media-key replaced the defaults: image-url was no longer tried.
        let added = try object(try await richpush(common + ["--media-key", "data.pic"]).stdout)
        #expect(added["outcome"] as? String == "media_attached")
        let replaced = try object(try await richpush(common + ["--media-key", "data.pic", "--replace-media-keys"]).stdout)
        #expect(replaced["outcome"] as? String == "text_only")
        #expect(replaced["reason"] as? String == "no_media")
        let pushReplaced = try object(try await richpush(common + ["--push-id-key", "data.id", "--replace-push-id-keys"]).stdout)
        #expect(pushReplaced["pushId"] is NSNull)
        let alone = try await richpush(common + ["--replace-media-keys"])
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--replace-media-keys needs at least one --media-key PATH"), "\(alone.stderr)")
    }

    @Test("--settings applies the extension's Info.plist with the iOS parser: same keys, same problems")
    func settingsEquivalence() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let richPush: [String: Any] = [
            "ReceiptsURL": server.url("/receipts"), "MediaKeyPaths": ["data.picture"], "PushIDKeyPaths": ["data.id"],
            "AllowedHTTPHosts": ["127.0.0.1"], "Deadline": 45, "DefaultBody": "Tap to see it",
        ]
        let info: [String: Any] = ["CFBundleIdentifier": "com.example.app.service", "RichPush": richPush]
        let plist = dir.appendingPathComponent("Info.plist")
        try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0).write(to: plist)
        // The iOS parser, in process, on the same file and on the same dictionary.
        let fromFile = try RichPushSettings.read(contentsOf: plist)
        let fromDictionary = RichPushSettings.read(infoDictionary: info)
        #expect(fromFile.pipeline.mediaKeyPaths == fromDictionary.pipeline.mediaKeyPaths)
        #expect(fromFile.pipeline.pushIDKeyPaths == fromDictionary.pipeline.pushIDKeyPaths)
        #expect(fromFile.pipeline.receiptsURL == fromDictionary.pipeline.receiptsURL)
        #expect(fromFile.pipeline.deadline == fromDictionary.pipeline.deadline)
        #expect(fromFile.problems == fromDictionary.problems)
        #expect(fromFile.problems.count == 1)  // Deadline 45 is outside 1…29 s

        let payload = dir.appendingPathComponent("p.json")
        let text = #"""
            {"aps":{"alert":{"title":"T","body":""},"mutable-content":1},"push_id":"other",
             "image-url":"\#(server.url("/media/logo.png"))","data":{"picture":"\#(server.url("/media/photo.jpg"))","id":"plist-1"}}
            """#
        try Data(text.utf8).write(to: payload)
        let run = try await richpush(["simulate", payload.path, "--settings", plist.path, "--out", dir.appendingPathComponent("o").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try object(run.stdout)
        // The Info.plist's keys come before the defaults: data.picture (JPEG) and data.id win.
        #expect(json["pushId"] as? String == "plist-1")
        #expect(json["pushIdKey"] as? String == "data.id")
        let content = try #require(json["content"] as? [String: Any])
        #expect(content["body"] as? String == "Tap to see it")
        let attachments = try #require(content["attachments"] as? [[String: Any]])
        #expect(attachments.first?["type"] as? String == "public.jpeg")
        #expect((json["receipt"] as? [String: Any])?["status"] as? String == "sent")
        for problem in fromFile.problems { #expect(run.stderr.contains("warning: \(plist.path): \(problem)"), "\(run.stderr)") }
        // Without --settings: the defaults (push_id, image-url's PNG), no receipts URL.
        let plain = try object(try await richpush(["simulate", payload.path, "--allow-http-host", "127.0.0.1", "--json"]).stdout)
        #expect(plain["pushId"] as? String == "other")
        let plainAttachments = try #require((plain["content"] as? [String: Any])?["attachments"] as? [[String: Any]])
        #expect(plainAttachments.first?["type"] as? String == "public.png")
        // A file that is not a property list is a usage error naming the file.
        let bad = dir.appendingPathComponent("bad.plist")
        try Data("not a plist".utf8).write(to: bad)
        let refused = try await richpush(["simulate", payload.path, "--settings", bad.path])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("bad.plist"), "\(refused.stderr)")
    }
}
