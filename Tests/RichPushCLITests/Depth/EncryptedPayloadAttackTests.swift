import Foundation
import RichPushTestSupport
import Testing

/// Issue 22, item 5, through `richpush encrypt` and `richpush simulate`: media named in the clear
/// beside an envelope is never fetched or attached, and an envelope copied into another push's
/// payload is `decrypt_failed` there instead of being shown and counted under that push.
@Suite("Encrypted payloads under attack, through richpush simulate", .serialized)
struct EncryptedPayloadAttackTests {
    typealias Depth = DepthSimulateTests

    static func mediaRequests(_ server: DepthServer) async throws -> Int {
        let data = try await DepthServer.get("\(server.base)/requests")
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["media"] as? Int ?? -1
    }

    @Test func clearMediaBesideTheEnvelopeIsNeitherFetchedNorAttached() async throws {
        let scratch = try Depth.Scratch()
        let server = try await DepthServer.start()
        defer { withExtendedLifetime(server) {} }
        var payload = try await Depth.encrypt(
            ["title": "Order shipped", "body": "Parcel 4711", "media-url": "\(server.base)/media/photo.jpg", "push_id": "enc-clear"], in: scratch)
        // The attack: a clear image in the keys the extension tries first, and in the alert.
        payload["image-url"] = "\(server.base)/media/logo.png"
        var aps = try #require(payload["aps"] as? [String: Any])
        var alert = try #require(aps["alert"] as? [String: Any])
        alert["image"] = "\(server.base)/media/anim.gif"
        aps["alert"] = alert
        payload["aps"] = aps
        let run = try await Depth.simulate(try scratch.write("payload.json", payload), ["--keys", scratch.keys.path, "--out", scratch.path("out")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json["outcome"] as? String == "media_attached")
        #expect(run.content["title"] as? String == "Order shipped")
        #expect(run.attachments.count == 1)
        #expect(run.attachments.first?["type"] as? String == "public.jpeg")
        #expect(run.attachments.first?["bytes"] as? Int == 89_696)
        #expect(try await Self.mediaRequests(server) == 1, "only the encrypted media-url is fetched")
    }

    @Test func anEnvelopeMovedToAnotherPushIsDecryptFailedThere() async throws {
        let scratch = try Depth.Scratch()
        let server = try await DepthServer.start()
        defer { withExtendedLifetime(server) {} }
        let original = try await Depth.encrypt(
            ["title": "Secret", "body": "For push A", "media-url": "\(server.base)/media/photo.jpg", "push_id": "push-a"], in: scratch)
        #expect((original["enc"] as? [String: Any])?["v"] as? Int == 2)
        #expect(original["push_id"] as? String == "push-a")
        // As made, it opens.
        let own = try await Depth.simulate(try scratch.write("a.json", original), ["--keys", scratch.keys.path])
        #expect(own.details["decryption"] as? String == "decrypted")
        #expect(own.content["title"] as? String == "Secret")
        // The attack: the same envelope in push B's payload.
        var moved = Depth.genericAlert
        moved["push_id"] = "push-b"
        moved["enc"] = original["enc"]
        let run = try await Depth.simulate(try scratch.write("b.json", moved), ["--keys", scratch.keys.path])
        #expect(run.json["pushId"] as? String == "push-b")
        #expect(run.json["outcome"] as? String == "text_only")
        #expect(run.json["reason"] as? String == "decrypt_failed")
        #expect(run.details["decryption"] as? String == "bad_tag")
        #expect(run.content["title"] as? String == "Shop")
        #expect(!run.stdout.contains("Secret") && !run.stdout.contains("For push A"))
    }
}
