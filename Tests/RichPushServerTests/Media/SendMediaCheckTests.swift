import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `POST /v1/pushes` probes (and, with the media edge, optimises) each distinct media URL before
/// the first token is sent (issue 19, item 4), on the built `richpush serve` against
/// `mock_apns.py` and a local media server with real files.
@Suite("POST /v1/pushes: the media check at send time", .serialized)
struct SendMediaCheckTests {
    static let token = MockAPNsProcess.token("e1")
    /// The media server's host opened (SSRF policy), its throwaway CA trusted.
    static func localMedia(_ files: SendMediaFiles) -> [String] {
        ["--media-allow-host", "127.0.0.1", "--media-ca-file", files.caFile.path]
    }

    static func json(_ body: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    /// The payload APNs last received, and the mock's request count.
    static func delivered(_ mock: MockAPNsProcess) async throws -> (payload: [String: Any], requests: Int) {
        let stats = try await mock.stats()
        let requests = stats["requests"]?.intValue ?? -1
        guard let b64 = stats["last_body_b64"]?.stringValue, let body = Data(base64Encoded: b64),
            let payload = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return ([:], requests) }
        return (payload, requests)
    }

    static func error(_ r: HTTPTestClient.Response) throws -> [String: Any] {
        try #require(try r.json()["error"] as? [String: Any], "\(r.status) \(r.text)")
    }

    static func media(_ r: HTTPTestClient.Response) throws -> [[String: Any]] {
        try #require(try r.json()["media"] as? [[String: Any]], "\(r.text)")
    }

    @Test("check (no edge): an attachable URL goes out as it is; WebP and a 404 are 422 media_refused, nothing sent; send_text sends without them")
    func checkWithoutEdge() async throws {
        let files = try await SendMediaFiles.shared()
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments() + Self.localMedia(files))
        let c = server.client()

        let photo = files.url("f/photo.jpg")
        let ok = try await c.postJSON(
            "/v1/pushes", try Self.json(["push_id": "m-ok", "tokens": [Self.token], "title": "t", "image": photo]), headers: server.admin)
        #expect(ok.status == 200, "\(ok.text)")
        let okMedia = try Self.media(ok)
        #expect(okMedia.count == 1)
        #expect(okMedia.first?["url"] as? String == photo)
        #expect(okMedia.first?["action"] as? String == "checked")
        #expect(okMedia.first?["reason"] is NSNull)
        #expect(okMedia.first?["type"] as? String == "public.jpeg")
        #expect(okMedia.first?["bytes"] as? Int == 89_696)
        var sent = try await Self.delivered(mock)
        #expect(sent.requests == 1)
        #expect(sent.payload["image-url"] as? String == photo, "\(sent.payload)")

        // WebP: what iOS refuses. Nothing goes to APNs; the answer names the reason and the fixes.
        let webp = files.url("f/photo.webp")
        let refused = try await c.postJSON(
            "/v1/pushes", try Self.json(["push_id": "m-webp", "tokens": [Self.token], "title": "t", "image": webp]), headers: server.admin)
        #expect(refused.status == 422, "\(refused.text)")
        let error = try Self.error(refused)
        #expect(error["code"] as? String == "media_refused")
        #expect(error["field"] as? String == "image")
        let message = error["message"] as? String ?? ""
        #expect(message.contains("nothing was sent: the extension would not attach \(webp) (unsupported_format: "), "\(message)")
        #expect(message.contains("--media-store-bytes") && message.contains("\"on_media_error\": \"send_text\""), "\(message)")
        #expect(try await Self.delivered(mock).requests == 1)
        // With an Idempotency-Key the refusal is not kept as the key's answer (nothing was sent):
        // the same request again is checked again, not replayed.
        let keyed = try Self.json(["push_id": "m-webp", "tokens": [Self.token], "title": "t", "image": webp])
        for _ in 0..<2 {
            let r = try await c.postJSON("/v1/pushes", keyed, headers: server.admin.merging(["Idempotency-Key": "webp-1"]) { $1 })
            #expect(r.status == 422 && r.headers["idempotent-replayed"] == nil, "\(r.status) \(r.headers)")
        }

        // A 404, in a payload given whole.
        let missing = files.url("missing.jpg")
        let notFound = try await c.postJSON(
            "/v1/pushes",
            try Self.json([
                "push_id": "m-404", "tokens": [Self.token],
                "payload": ["aps": ["alert": ["title": "t", "body": "b"], "mutable-content": 1], "media-url": missing],
            ]), headers: server.admin)
        #expect(notFound.status == 422, "\(notFound.text)")
        #expect((try Self.error(notFound)["message"] as? String ?? "").contains("(http_status: "))
        #expect(try Self.error(notFound)["field"] as? String == "payload")
        #expect(try await Self.delivered(mock).requests == 1)

        // send_text: the media key goes, the push goes out as text; the answer says so.
        let text = try await c.postJSON(
            "/v1/pushes",
            try Self.json(["push_id": "m-text", "tokens": [Self.token], "title": "t", "image": webp, "on_media_error": "send_text"]),
            headers: server.admin)
        #expect(text.status == 200, "\(text.text)")
        #expect(try text.json()["accepted"] as? Int == 1)
        let textMedia = try Self.media(text)
        #expect(textMedia.first?["action"] as? String == "sent_text")
        #expect(textMedia.first?["reason"] as? String == "unsupported_format")
        sent = try await Self.delivered(mock)
        #expect(sent.requests == 2)
        #expect(sent.payload["image-url"] == nil, "\(sent.payload)")
        #expect((sent.payload["aps"] as? [String: Any])?["alert"] != nil)

        // off: sent as given, no fetch.
        let before = try await files.paths().filter { $0.contains("photo.webp") }.count
        let off = try await c.postJSON(
            "/v1/pushes", try Self.json(["push_id": "m-off", "tokens": [Self.token], "title": "t", "image": webp, "media": "off"]),
            headers: server.admin)
        #expect(off.status == 200, "\(off.text)")
        #expect(try off.json()["media"] == nil)
        #expect(try await Self.delivered(mock).payload["image-url"] as? String == webp)
        #expect(try await files.paths().filter { $0.contains("photo.webp") }.count == before)

        // optimize without the edge, and values that are not options: 400 naming the field.
        for (body, field) in [
            (["media": "optimize"], "media"), (["media": "always"], "media"), (["on_media_error": "skip"], "on_media_error"),
        ] {
            let r = try await c.postJSON(
                "/v1/pushes", try Self.json(["tokens": [Self.token], "title": "t", "image": photo].merging(body) { $1 }), headers: server.admin)
            #expect(r.status == 400, "\(body): \(r.text)")
            #expect(try Self.error(r)["field"] as? String == field)
        }
        #expect(try await Self.delivered(mock).requests == 3)
        #expect(await server.terminate() == 0)

        // The send records keep what the check found and did, per push and original URL.
        let store = try SQLiteStore(path: server.database.path)
        defer { try? store.close() }
        #expect(try store.pushMedia("m-ok").map(\.action) == ["checked"])
        let webpRecord = try #require(try store.pushMedia("m-webp").first)
        #expect(webpRecord.action == "refused")
        #expect(webpRecord.reason == "unsupported_format")
        #expect(webpRecord.originalType == "org.webmproject.webp")
        #expect(try store.pushMedia("m-text").map(\.action) == ["sent_text"])
        #expect(try store.pushMedia("m-404").first?.reason == "http_status")
        #expect(try store.pushMedia("m-off").isEmpty)
    }

    @Test("optimize (with the edge): WebP and an over-budget JPEG go out as the edge's JPEGs, the originals kept in the record; simulate attaches them")
    func optimizeWithEdge() async throws {
        let files = try await SendMediaFiles.shared()
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        // Reserved for the test: no other process can take it before the server binds it.
        let reservation = try PortReservation()
        defer { withExtendedLifetime(reservation) {} }
        let port = reservation.port
        // The edge's URLs are https (iOS's ATS, and the providers' lint); TLS is the reverse
        // proxy's part in production (deploy/nginx), so the device side below fetches the same
        // path from the server itself over http.
        let publicURL = "https://127.0.0.1:\(port)"
        // --media-public-url: the edge's address alone (the dashboard keeps its own origin).
        let edge = ["--port", "\(port)", "--media-public-url", publicURL, "--media-store-bytes", "10000000"]
        let server = try await ServerProcess(extraArguments: mock.serveArguments() + Self.localMedia(files) + edge)
        let c = server.client()
        let dir = try Fixtures.temporaryDirectory("send-media-optimize")
        defer { try? FileManager.default.removeItem(at: dir) }

        let photo = files.url("f/photo.jpg")
        for (pushID, name, originalType) in [("o-webp", "f/photo.webp", "org.webmproject.webp"), ("o-large", "f/large.jpg", "public.jpeg")] {
            let original = files.url(name)
            // The default with the edge is optimize; two keys' worth of the same URL is probed once.
            let r = try await c.postJSON(
                "/v1/pushes", try Self.json(["push_id": pushID, "tokens": [Self.token], "title": "t", "image": original]), headers: server.admin)
            #expect(r.status == 200, "\(r.text)")
            let media = try #require(try Self.media(r).first)
            #expect(media["action"] as? String == "optimized")
            #expect(media["type"] as? String == originalType)
            #expect(media["optimized_type"] as? String == "image/jpeg")
            let optimizedBytes = try #require(media["optimized_bytes"] as? Int)
            #expect(optimizedBytes > 1_000 && optimizedBytes <= 307_200)
            let edgeURL = try #require(media["sent_url"] as? String)
            #expect(edgeURL.hasPrefix(publicURL + "/m/") && edgeURL.hasSuffix(".jpg"), "\(edgeURL)")
            if name == "f/large.jpg" {
                #expect(media["reason"] is NSNull)
                #expect(media["width"] as? Int == 2048)
            } else {
                #expect(media["reason"] as? String == "unsupported_format")
            }

            // APNs got the edge's URL, not the original.
            let sent = try await Self.delivered(mock)
            #expect(sent.payload["image-url"] as? String == edgeURL, "\(sent.payload)")
            let body = try JSONSerialization.data(withJSONObject: sent.payload)
            #expect(!String(decoding: body, as: UTF8.self).contains(name.split(separator: "/").last.map(String.init) ?? name))

            // The edge serves it, and the real extension attaches it as a JPEG within the budget.
            let served = try await c.request("GET", String(edgeURL.dropFirst(publicURL.count)))
            #expect(served.status == 200)
            #expect(served.headers["content-type"] == "image/jpeg")
            #expect(served.body.count == optimizedBytes)
            let payloadFile = dir.appendingPathComponent("\(pushID).json")
            var device = sent.payload
            device["image-url"] = "http://127.0.0.1:\(port)" + edgeURL.dropFirst(publicURL.count)
            try JSONSerialization.data(withJSONObject: device).write(to: payloadFile)
            let run = try await ChildProcess(
                Fixtures.richpushBinary.path,
                ["simulate", payloadFile.path, "--allow-http-host", "127.0.0.1", "--out", dir.appendingPathComponent(pushID).path, "--json"]
            ).run(timeout: 60)
            #expect(run.status == 0, "\(run.stderr)")
            let outcome = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            #expect(outcome?["outcome"] as? String == "media_attached", "\(run.stdout)")
            #expect(run.stdout.contains("public.jpeg"), "\(run.stdout)")
        }

        // An attachable JPEG within both budgets is sent as it is.
        let small = try await c.postJSON(
            "/v1/pushes", try Self.json(["push_id": "o-small", "tokens": [Self.token], "title": "t", "image": photo]), headers: server.admin)
        #expect(small.status == 200, "\(small.text)")
        #expect(try Self.media(small).first?["action"] as? String == "checked")
        #expect(try await Self.delivered(mock).payload["image-url"] as? String == photo)
        // The push's page says what was found and sent.
        let page = try await c.request("GET", "/pushes/o-webp", headers: server.admin)
        #expect(page.text.contains("<span class=\"mono\">unsupported_format</span></td><td class=\"num\">WebP · "), "\(page.text)")
        #expect(page.text.contains("<td>optimised → JPEG · "))
        #expect(await server.terminate() == 0)

        // The send record keeps the original URL and names the copy (referenced: never evicted).
        let store = try SQLiteStore(path: server.database.path)
        defer { try? store.close() }
        let record = try #require(try store.pushMedia("o-webp").first)
        #expect(record.originalURL == files.url("f/photo.webp"))
        #expect(record.action == "optimized")
        #expect(record.reason == "unsupported_format")
        #expect(record.optimizedType == "image/jpeg")
        let sha = try #require(record.sha256)
        #expect(record.sentURL == "\(publicURL)/m/\(sha).jpg")
        #expect(try store.media(sha)?.bytes.count == record.optimizedBytes)
        #expect(try store.pushMedia("o-small").first?.action == "checked")
    }

    @Test("no server-side request forgery: media at 127.0.0.1, 10.x, 169.254.169.254, ::1, or a redirect there, is refused unless --media-allow-host")
    func addressPolicy() async throws {
        let files = try await SendMediaFiles.shared()
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        // No --media-allow-host: the media server on 127.0.0.1 is as closed as the metadata service.
        let closed = try await ServerProcess(extraArguments: mock.serveArguments() + ["--media-ca-file", files.caFile.path])
        let marker = "f/photo.jpg?ssrf=\(UUID().uuidString)"
        let targets = [
            (files.url(marker), "127.0.0.1 is a loopback address"), ("https://10.1.2.3/a.jpg", "private address (10.0.0.0/8)"),
            ("https://169.254.169.254/latest/meta-data/a.jpg", "link-local"), ("https://[::1]:\(files.port)/f/photo.jpg", "loopback"),
        ]
        for (url, says) in targets {
            let r = try await closed.client().postJSON(
                "/v1/pushes", try Self.json(["tokens": [Self.token], "title": "t", "image": url]), headers: closed.admin)
            #expect(r.status == 422, "\(url): \(r.text)")
            let message = try Self.error(r)["message"] as? String ?? ""
            #expect(message.contains("(blocked_address: ") && message.contains(says), "\(url): \(message)")
            #expect(message.contains("--media-allow-host"), "\(message)")
        }
        #expect(!(try await files.paths().contains { $0.contains("ssrf") }))
        #expect(try await Self.delivered(mock).requests == 0)
        #expect(await closed.terminate() == 0)

        // --media-allow-host 127.0.0.1 opens that host only: its redirects to 10.x, the metadata
        // address or ::1 are refused on that hop.
        let open = try await ServerProcess(extraArguments: mock.serveArguments() + Self.localMedia(files))
        for target in ["https://10.9.9.9/x.jpg", "https://169.254.169.254/latest", "https://[::1]:\(files.port)/f/photo.jpg"] {
            let url = files.url("redirect?to=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target))
            let r = try await open.client().postJSON(
                "/v1/pushes", try Self.json(["tokens": [Self.token], "title": "t", "image": url]), headers: open.admin)
            #expect(r.status == 422, "\(target): \(r.text)")
            #expect((try Self.error(r)["message"] as? String ?? "").contains("(blocked_address: "), "\(target): \(r.text)")
        }
        let allowed = try await open.client().postJSON(
            "/v1/pushes", try Self.json(["tokens": [Self.token], "title": "t", "image": files.url(marker)]), headers: open.admin)
        #expect(allowed.status == 200, "\(allowed.text)")
        #expect(try await Self.delivered(mock).requests == 1)
        #expect(await open.terminate() == 0)
    }
}
