import Foundation
import RichPushTestSupport
import Testing

/// `richpush media probe`, `richpush lint --probe`: one line (or JSON) per URL, exit 1 when the
/// extension would not attach it.
@Suite("Media probe on the command line")
struct MediaCommandLineTests {
    static let allow = ["--allow-http-host", "127.0.0.1", "--media-allow-host", "127.0.0.1"]

    static func richpush(_ arguments: [String]) async throws -> ChildProcess.Finished {
        try await ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: 60)
    }

    @Test("media probe: ok with exit 0, the reason with exit 1, JSON fields")
    func probe() async throws {
        let bench = try await MediaWorkbench.shared()
        let ok = try await Self.richpush(["media", "probe", bench.url("f/photo.jpg")] + Self.allow)
        #expect(ok.status == 0)
        #expect(ok.stdout.hasPrefix("ok \(bench.url("f/photo.jpg")): JPEG 900×600, 89696 bytes"))
        let webp = try await Self.richpush(["media", "probe", bench.url("f/photo.webp"), "--json"] + Self.allow)
        #expect(webp.status == 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(webp.stdout.utf8)) as? [String: Any])
        #expect(json["reason"] as? String == "unsupported_format")
        #expect(json["type"] as? String == "org.webmproject.webp")
        #expect(json["final_url"] as? String == bench.url("f/photo.webp"))
        #expect(json["http_status"] as? Int == 200)
        #expect(json["ttfb_ms"] is Int)
        #expect(json["total_ms"] is Int)
        let refused = try await Self.richpush(["media", "probe", bench.url("f/photo.jpg"), "--allow-http-host", "127.0.0.1"])
        #expect(refused.status == 1)
        #expect(refused.stdout.hasPrefix("blocked_address "))
        let usage = try await Self.richpush(["media", "probe", bench.url("f/photo.jpg"), "--max-bytes", "1000"])
        #expect(usage.status == 64)
    }

    @Test("lint --probe: after the findings, one line per distinct media URL")
    func lintProbe() async throws {
        let bench = try await MediaWorkbench.shared()
        let folder = try Fixtures.temporaryDirectory("richpush-lint-probe")
        defer { try? FileManager.default.removeItem(at: folder) }
        func payload(_ urls: [String: String]) throws -> String {
            var object: [String: Any] = ["aps": ["alert": ["title": "Sale", "body": "now"], "mutable-content": 1]]
            for (k, v) in urls { object[k] = v }
            let file = folder.appendingPathComponent("p\(urls.count)-\(UUID().uuidString).json")
            try JSONSerialization.data(withJSONObject: object).write(to: file)
            return file.path
        }
        // The local servers are http://, allowed by --allow-http-host: the linter's own
        // insecure_media_url findings are warnings (they were errors before the allowance counted),
        // the probe lines follow them, and the WebP the probe refuses makes the exit status 1.
        let path = try payload(["media-url": bench.url("f/photo.webp"), "image-url": bench.url("f/photo.jpg")])
        let probed = try await Self.richpush(["lint", path, "--probe"] + Self.allow)
        #expect(probed.status == 1)
        let lines = probed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("warning insecure_media_url") }.count == 2, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("unsupported_format media-url \(bench.url("f/photo.webp")): WebP") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("ok image-url \(bench.url("f/photo.jpg")): JPEG 900×600") }, "\(lines)")
        // Lint's own warning that the payload carries no push id (no receipt would be sent).
        #expect(lines.filter { $0.hasPrefix("warning no_push_id") }.count == 1, "\(lines)")
        #expect(lines.count == 5, "two findings, the push-id warning, two probe lines: \(lines)")
        let without = try await Self.richpush(["lint", path] + Self.allow)
        #expect(!without.stdout.contains("unsupported_format"), "without --probe nothing is fetched: \(without.stdout)")
        let json = try await Self.richpush(["lint", path, "--probe", "--json"] + Self.allow)
        let objects = try json.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.contains { $0?["key"] as? String == "media-url" && $0?["reason"] as? String == "unsupported_format" })
    }
}
