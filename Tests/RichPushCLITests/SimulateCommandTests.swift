import Foundation
import RichPushTestSupport
import Testing

/// `richpush simulate`, run as a built binary against the local media server.
@Suite("richpush simulate")
struct SimulateCommandTests {
    /// Runs the binary (awaiting its exit without blocking a thread); returns status, stdout, stderr.
    func richpush(_ arguments: [String], timeout: Double = 60) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: timeout)
    }

    /// Article 000's payload with its image URL pointed at the local server, in a temporary file.
    func article000(server: MediaServer, path: String = "/media/photo.jpg", in dir: URL) throws -> URL {
        var text = String(decoding: try Fixtures.payload("seed000-image-and-stats.json"), as: UTF8.self)
        let range = try #require(text.range(of: #"https://[^"]+"#, options: .regularExpression))
        text.replaceSubrange(range, with: server.url(path))
        let file = dir.appendingPathComponent("payload.json")
        try Data(text.utf8).write(to: file)
        return file
    }

    func object(_ text: String) throws -> [String: Any] {
        let line = try #require(text.split(separator: "\n").first)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("--json prints the delivered content with the attachment, and the receipt reaches the listener")
    func jsonWithAttachment() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = try article000(server: server, in: dir)
        let out = dir.appendingPathComponent("out")
        let run = try await richpush([
            "simulate", payload.path, "--allow-http-host", "127.0.0.1", "--receipts-url", server.url("/receipts"),
            "--out", out.path, "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try object(run.stdout)
        // Issue 3: run in the Linux host, the object also has "host" (SimulateHostTests checks it);
        // issue 6 adds "details" (DepthSimulateTests checks it).
        // Issue 18 adds "pushIdKey" and "vendor" (SimulateVendorTests checks them).
        #expect(
            Set(json.keys).subtracting(["host", "details"]) == [
                "outcome", "reason", "httpStatus", "pushId", "pushIdKey", "vendor", "elapsedMs", "content", "receipt",
            ])
        #expect(json["outcome"] as? String == "media_attached")
        #expect(json["reason"] is NSNull)
        #expect(json["pushId"] as? String == "2018001")
        #expect(json["elapsedMs"] is Int)
        let content = try #require(json["content"] as? [String: Any])
        #expect(Set(content.keys) == ["title", "subtitle", "body", "categoryIdentifier", "threadIdentifier", "badge", "sound", "attachments"])
        #expect(content["title"] as? String == "新しい記事をおすすめします")
        #expect(content["body"] as? String == "今すぐ確認")
        #expect(content["categoryIdentifier"] as? String == "image")
        #expect(content["badge"] as? Int == 0)
        #expect(content["sound"] as? String == "default")
        let attachments = try #require(content["attachments"] as? [[String: Any]])
        let attachment = try #require(attachments.first)
        #expect(Set(attachment.keys) == ["identifier", "file", "type", "bytes"])
        #expect(attachment["type"] as? String == "public.jpeg")
        #expect(attachment["bytes"] as? Int == 89_696)
        let file = try #require(attachment["file"] as? String)
        #expect(file.hasPrefix(out.path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(contentsOf: Fixtures.media("photo.jpg")))
        let receipt = try #require(json["receipt"] as? [String: Any])
        #expect(receipt["status"] as? String == "sent")
        #expect(receipt["httpStatus"] as? Int == 200)
        let receipts = try await server.receipts()
        #expect(receipts.contains { $0.hasPrefix("push_id=2018001&") })
    }

    @Test("without --json it prints a readable summary")
    func readableSummary() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = try article000(server: server, in: dir)
        let run = try await richpush(["simulate", payload.path, "--allow-http-host", "127.0.0.1", "--out", dir.appendingPathComponent("o").path])
        #expect(run.status == 0)
        #expect(run.stdout.contains("media_attached"))
        #expect(run.stdout.contains("新しい記事をおすすめします"))
        #expect(run.stdout.contains("public.jpeg, 89696 bytes"))
        #expect(run.stdout.contains("receipt     skipped"))
    }

    @Test("a failed fetch still exits 0 and reports the reason and status")
    func failureExitsZero() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = try article000(server: server, path: "/404json", in: dir)
        let run = try await richpush(["simulate", payload.path, "--allow-http-host", "127.0.0.1", "--json"])
        #expect(run.status == 0)
        let json = try object(run.stdout)
        #expect(json["outcome"] as? String == "text_only")
        #expect(json["reason"] as? String == "http_status")
        #expect(json["httpStatus"] as? Int == 404)
        let content = try #require(json["content"] as? [String: Any])
        #expect((content["attachments"] as? [Any])?.isEmpty == true)
    }

    @Test("http:// without --allow-http-host is insecure_scheme")
    func needsATSException() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = try article000(server: server, in: dir)
        let run = try await richpush(["simulate", payload.path, "--json"])
        #expect(run.status == 0)
        #expect(try object(run.stdout)["reason"] as? String == "insecure_scheme")
    }

    @Test("--budget makes the host expire the run and deliver the best attempt")
    func budgetExpires() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = try article000(server: server, path: "/hang", in: dir)
        let clock = ContinuousClock()
        let started = clock.now
        let run = try await richpush(["simulate", payload.path, "--allow-http-host", "127.0.0.1", "--budget", "1", "--deadline", "10", "--json"])
        let lifetime = clock.now - started
        #expect(run.status == 0)
        let json = try object(run.stdout)
        #expect(json["outcome"] as? String == "text_only")
        #expect(json["reason"] as? String == "timeout")
        let elapsed = try #require(json["elapsedMs"] as? Int)
        // At the 1 s budget, not the 10 s deadline: half the deadline tells them apart on a
        // loaded machine.
        #expect(elapsed < 5_000, "\(elapsed) ms")
        // Not before the budget: the host's 1 s runs from its own start, before the pipeline's
        // (whose elapsedMs a loaded machine left at 947 ms), so the run as a whole took it.
        #expect(lifetime >= .seconds(1), "the run took \(lifetime)")
    }

    @Test("--deadline stops media work on time")
    func deadlineStops() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = try article000(server: server, path: "/drip", in: dir)
        let run = try await richpush(["simulate", payload.path, "--allow-http-host", "127.0.0.1", "--deadline", "1.5", "--json"])
        #expect(run.status == 0)
        let json = try object(run.stdout)
        #expect(json["reason"] as? String == "timeout")
        let elapsed = try #require(json["elapsedMs"] as? Int)
        // The drip would take 150 s: the deadline holds within a generous slack.
        #expect(elapsed >= 1_450 && elapsed < 6_500, "\(elapsed) ms")
    }

    @Test("content rule options change the body and the category")
    func ruleOptions() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = dir.appendingPathComponent("p.json")
        let text = #"{"aps":{"alert":{"title":"T","body":""},"mutable-content":1},"data":{"pic":"\#(server.url("/media/logo.png"))"}}"#
        try Data(text.utf8).write(to: payload)
        let run = try await richpush([
            "simulate", payload.path, "--allow-http-host", "127.0.0.1", "--media-key", "data.pic",
            "--default-body", "Tap to see", "--media-category", "photo", "--out", dir.appendingPathComponent("o").path, "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try object(run.stdout)
        let content = try #require(json["content"] as? [String: Any])
        #expect(json["outcome"] as? String == "media_attached")
        #expect(content["body"] as? String == "Tap to see")
        #expect(content["categoryIdentifier"] as? String == "photo")
        // No default body unless one is given.
        let off = try await richpush(["simulate", payload.path, "--json"])
        let offContent = try #require(try object(off.stdout)["content"] as? [String: Any])
        #expect(offContent["body"] as? String == "")
    }

    @Test("the URLSession transport gives the same result from the command line")
    func urlSessionTransport() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = try article000(server: server, in: dir)
        let run = try await richpush([
            "simulate", payload.path, "--allow-http-host", "127.0.0.1", "--transport", "urlsession", "--out", dir.appendingPathComponent("o").path, "--json",
        ])
        #expect(run.status == 0)
        #expect(try object(run.stdout)["outcome"] as? String == "media_attached")
    }

    @Test("a malformed payload file is delivered as the original and exits 0")
    func malformedPayload() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = dir.appendingPathComponent("bad.json")
        try Data(#"{"aps": "oops"}"#.utf8).write(to: payload)
        let run = try await richpush(["simulate", payload.path, "--json"])
        #expect(run.status == 0)
        let json = try object(run.stdout)
        #expect(json["outcome"] as? String == "original")
        #expect(json["reason"] as? String == "invalid_payload")
    }

    @Test(
        "bad command-line use exits 64 with a message saying what to fix",
        arguments: [
            (["simulate", "p.json", "--dedline", "3"], "--deadline"),
            (["simulate"], "PAYLOAD.json"),
            (["simulate", "p.json", "--deadline", "soon"], "--deadline soon"),
            (["simulate", "p.json", "--budget", "0"], "--budget 0"),
            (["simulate", "p.json", "--receipts-url", "not a url"], "--receipts-url"),
            (["simulate", "a.json", "b.json"], "one payload file"),
            (["simulate", "p.json", "--transport", "carrier-pigeon"], "curl or urlsession"),
            (["simulate", "p.json", "--json=yes"], "--json"),
        ])
    func usageErrors(_ arguments: [String], _ mentions: String) async throws {
        let run = try await richpush(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(mentions), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("an unreadable payload file exits 1 with the path in the message")
    func unreadableFile() async throws {
        let run = try await richpush(["simulate", "/nonexistent/payload.json"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("/nonexistent/payload.json"))
        #expect(run.stderr.contains("cannot read"))
    }

    @Test("--help explains every option, and richpush --help lists simulate")
    func help() async throws {
        let run = try await richpush(["simulate", "--help"])
        #expect(run.status == 0)
        for option in [
            "--deadline", "--budget", "--receipts-url", "--allow-http-host", "--out", "--json", "--media-key", "--default-body", "--media-category",
            "--no-media-category", "--transport",
        ] {
            #expect(run.stdout.contains(option), "\(option)")
        }
        let top = try await richpush(["--help"])
        #expect(top.status == 0)
        #expect(top.stdout.contains("simulate"))
    }

    @Test("the summary shows what iOS takes from aps: the interruption level and what it needs, the relevance score, a critical sound")
    func interruptionLevels() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func run(_ aps: String) async throws -> String {
            let file = dir.appendingPathComponent("\(UUID().uuidString).json")
            try Data(#"{"aps":{"alert":{"title":"Storm","body":"Take shelter"},"mutable-content":1,\#(aps)},"push_id":"w1"}"#.utf8).write(to: file)
            let result = try await richpush(["simulate", file.path])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        let critical = try await run(#""interruption-level":"critical","sound":{"critical":1,"name":"default","volume":0.8},"relevance-score":0.9"#)
        #expect(critical.contains("\nsound       default, critical, volume 0.8\n"), "\(critical)")
        #expect(
            critical.contains("\ninterruption critical (plays its sound through mute and Focus, only with Apple's critical-alerts entitlement"),
            "\(critical)")
        #expect(critical.contains("\nrelevance   0.9\n"), "\(critical)")
        let timeSensitive = try await run(#""interruption-level":"time-sensitive""#)
        #expect(timeSensitive.contains("interruption time-sensitive (breaks through Focus and the scheduled summary, only if the app has the Time Sensitive"))
        let unknown = try await run(#""interruption-level":"loud""#)
        #expect(unknown.contains("interruption loud (not a level Apple documents: iOS shows it as active)"), "\(unknown)")
        let none = try await run(#""sound":"default""#)
        #expect(!none.contains("interruption") && none.contains("\nsound       default\n"), "\(none)")
    }
}
