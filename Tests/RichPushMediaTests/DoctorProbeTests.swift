import Foundation
import RichPushCore
import RichPushDoctor
import RichPushMedia
import RichPushTestSupport
import Testing

/// `richpush doctor PATH --payload FILE --probe` on the Examples project: each media URL the
/// service extension would use (its `RichPush.MediaKeyPaths`: `data.image`), fetched from a real
/// local media server, as `media_refused` / `media_slow` / `media_ok` findings.
@Suite("doctor --probe")
struct DoctorProbeTests {
    static let examples = Fixtures.packageRoot.appendingPathComponent("Examples/RichPushExamples.xcodeproj").path

    static func doctor(_ media: String, _ extra: [String]) async throws -> ChildProcess.Finished {
        let folder = try Fixtures.temporaryDirectory("richpush-doctor-probe")
        defer { try? FileManager.default.removeItem(at: folder) }
        // data.image: a key only the Examples' extension reads (its Info.plist's MediaKeyPaths).
        let object: [String: Any] = ["aps": ["alert": ["title": "Sale", "body": "now"], "mutable-content": 1], "data": ["image": media]]
        let file = folder.appendingPathComponent("payload.json")
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        return try await ChildProcess(Fixtures.richpushBinary.path, ["doctor", examples, "--payload", file.path] + extra).run(timeout: 120)
    }

    static func findings(_ run: ChildProcess.Finished) throws -> [[String: String]] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout) \(run.stderr)")
        // The string fields (a finding's "configurations" is a list).
        let findings = try #require(root["findings"] as? [[String: Any]]).map { $0.compactMapValues { $0 as? String } }
        return findings
    }

    @Test("a WebP is media_refused unsupported_format (exit 1); a JPEG is media_ok with type, size and times; JSON shape")
    func webpRefusedJPEGAttached() async throws {
        let bench = try await MediaWorkbench.shared()
        let allow = ["--probe", "--json", "--allow-http-host", "127.0.0.1", "--media-allow-host", "127.0.0.1"]
        let webp = try await Self.doctor(bench.url("f/photo.webp"), allow)
        #expect(webp.status == 1)
        let refused = try Self.findings(webp).filter { $0["code"] == "media_refused" }
        #expect(refused.count == 1, "\(webp.stdout)")
        let finding = try #require(refused.first)
        #expect(Set(finding.keys) == ["code", "severity", "target", "message", "fix"])
        #expect(finding["severity"] == "error")
        #expect(finding["target"] == "payload")
        #expect(finding["message"]?.hasPrefix("data.image \(bench.url("f/photo.webp")): unsupported_format: WebP") == true, "\(finding)")
        #expect(finding["message"]?.contains("reachable: HTTP 200, WebP (org.webmproject.webp)") == true, "\(finding)")
        #expect(finding["message"]?.contains("of the extension's 30000 ms") == true, "\(finding)")
        #expect(finding["fix"]?.contains("richpush media optimize") == true, "\(finding)")

        let jpeg = try await Self.doctor(bench.url("f/photo.jpg"), allow)
        let found = try Self.findings(jpeg)
        #expect(!found.contains { $0["code"] == "media_refused" || $0["code"] == "media_slow" }, "\(jpeg.stdout)")
        let ok = try #require(found.first { $0["code"] == "media_ok" }, "\(jpeg.stdout)")
        #expect(ok["severity"] == "info")
        let message = try #require(ok["message"])
        #expect(
            message.hasPrefix(
                "data.image \(bench.url("f/photo.jpg")): the extension would attach it (reachable: HTTP 200, JPEG (public.jpeg) 900×600, 89696 bytes, ttfb "),
            "\(message)")
        // http://127.0.0.1 is still what the lint and ATS say it is: errors of their own.
        #expect(found.contains { $0["code"] == "insecure_media_url" })
        #expect(jpeg.status == 1)
    }

    @Test("the one-line form: SEVERITY CODE payload: … Fix: …, errors first; without --probe nothing is fetched")
    func lines() async throws {
        let bench = try await MediaWorkbench.shared()
        let run = try await Self.doctor(bench.url("f/photo.webp"), ["--probe", "--allow-http-host", "127.0.0.1", "--media-allow-host", "127.0.0.1"])
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let line = try #require(lines.first { $0.hasPrefix("error media_refused payload: data.image ") }, "\(lines)")
        #expect(line.contains(" Fix: send JPEG, PNG or GIF"))
        #expect(lines.last?.hasPrefix("richpush doctor: ") == true)
        // Without --media-allow-host the probe refuses 127.0.0.1 (no server-side request forgery).
        let blocked = try await Self.doctor(bench.url("f/photo.jpg"), ["--probe", "--allow-http-host", "127.0.0.1"])
        #expect(blocked.stdout.contains("error media_refused payload: data.image \(bench.url("f/photo.jpg")): blocked_address"), "\(blocked.stdout)")
        let without = try await Self.doctor(bench.url("f/photo.webp"), [])
        #expect(!without.stdout.contains(" media_refused ") && !without.stdout.contains(" media_ok "), "\(without.stdout)")
    }

    @Test("an https JPEG (a trusted test CA, --media-ca-file): media_ok and no error at all, exit 0")
    func httpsJPEGPasses() async throws {
        let bench = try await MediaWorkbench.shared()
        let folder = try Fixtures.temporaryDirectory("richpush-doctor-tls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let ca = folder.appendingPathComponent("ca.pem").path
        let server = ChildProcess(
            "python3", [Fixtures.supportDirectory.appendingPathComponent("probe_media_server.py").path, bench.folder.path, "--tls-ca-out", ca])
        let port = try await server.start(waitingForPort: 30)
        defer { server.kill() }
        let url = "https://127.0.0.1:\(port)/f/photo.jpg"
        let run = try await Self.doctor(url, ["--probe", "--json", "--media-allow-host", "127.0.0.1", "--media-ca-file", ca])
        #expect(run.status == 0, "\(run.stdout)")
        let found = try Self.findings(run)
        #expect(!found.contains { $0["severity"] == "error" || $0["severity"] == "warning" }, "\(run.stdout)")
        #expect(
            found.contains {
                $0["code"] == "media_ok" && $0["message"]?.hasPrefix("data.image \(url): the extension would attach it (reachable: HTTP 200, JPEG") == true
            }, "\(run.stdout)")
    }

    @Test("--probe without --payload is a usage error (64)")
    func probeNeedsPayload() async throws {
        let run = try await ChildProcess(Fixtures.richpushBinary.path, ["doctor", Self.examples, "--probe"]).run(timeout: 60)
        #expect(run.status == 64)
        #expect(run.stderr.contains("--payload FILE"), "\(run.stderr)")
    }

    @Test("media_slow from a first byte at 5 s or a total of 10 s (of the extension's 30 s); below both it is media_ok")
    func slowThresholds() {
        func result(ttfb: Int, total: Int) -> MediaProbeResult {
            var r = MediaProbeResult(url: "https://cdn.example.com/a.jpg")
            r.httpStatus = 200
            r.format = .jpeg
            r.bytes = 120_000
            r.ttfbMs = ttfb
            r.totalMs = total
            return r
        }
        let slowHead = MediaChecks.finding(result(ttfb: 5_000, total: 5_200), key: "image-url")
        #expect(slowHead.code == .mediaSlow)
        #expect(slowHead.severity == .warning)
        #expect(slowHead.message.contains("the first byte took 5000 ms"), "\(slowHead.message)")
        let slowBody = MediaChecks.finding(result(ttfb: 200, total: 10_000), key: "image-url")
        #expect(slowBody.code == .mediaSlow)
        #expect(slowBody.message.contains("the download took 10000 ms"), "\(slowBody.message)")
        #expect(slowBody.message.contains("120000 bytes, ttfb 200 ms, total 10000 ms of the extension's 30000 ms"), "\(slowBody.message)")
        let fine = MediaChecks.finding(result(ttfb: 4_999, total: 9_999), key: "image-url")
        #expect(fine.code == .mediaOK)
        #expect(fine.severity == .info)
    }
}
