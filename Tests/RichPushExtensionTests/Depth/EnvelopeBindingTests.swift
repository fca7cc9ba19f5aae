import Foundation
import RichPushTestSupport
import Testing

@_spi(RichPushInternal) @testable import RichPushExtension

/// Issue 22, item 5: someone who can change a payload on its way but has no key must not be able
/// to add media under the decrypted text, nor replay a ciphertext under another push.
@Suite("Encrypted payloads: clear keys ignored, envelope v2 bound to the push id")
struct EnvelopeBindingTests {
    static let key = EncryptedPayloadTests.key
    static let keys = EncryptedPayloadTests.keys
    static let secret: [String: RichPushJSONValue] = [
        "title": .string("Your order shipped"), "body": .string("Parcel 4711"), "media-url": .string("https://media.example/parcel.jpg"),
    ]

    /// A payload as `richpush encrypt --payload` makes it: generic alert, clear push id, `enc`.
    static func payload(pushID: String, envelope: EncryptedEnvelope, extra: [String: RichPushJSONValue] = [:]) -> RichPushJSONValue {
        var root: [String: RichPushJSONValue] = [
            "aps": .object(["alert": .object(["title": .string("Shop"), "body": .string("New message")]), "mutable-content": .int(1)]),
            "push_id": .string(pushID), "enc": envelope.json,
        ]
        for (k, v) in extra { root[k] = v }
        return .object(root)
    }

    @Test func clearMediaKeysBesideADecryptedEnvelopeAreIgnored() throws {
        let envelope = try PayloadCipher.encrypt(Self.secret, key: Self.key, kid: "k-2", pushID: "o-4711")
        #expect(envelope.version == 2)
        // The attack: media named in the clear, in every place the extension looks, and buttons.
        var payload = Self.payload(
            pushID: "o-4711", envelope: envelope,
            extra: [
                "image-url": .string("https://evil.example/a.jpg"), "attachment-url": .string("https://evil.example/b.jpg"),
                "url": .string("https://evil.example/c.jpg"), "fcm_options": .object(["image": .string("https://evil.example/d.jpg")]),
                "buttons": .array([.object(["id": .string("x"), "title": .string("Pay now")])]),
            ])
        guard case .object(var root) = payload, case .object(var aps)? = root["aps"] else { Issue.record("no aps"); return }
        aps["alert"] = .object(["title": .string("Shop"), "body": .string("New message"), "image": .string("https://evil.example/e.jpg")])
        aps["category"] = .string("orders")
        root["aps"] = .object(aps)
        payload = .object(root)

        let opened = DecryptedPayload.open(payload, keys: Self.keys)
        #expect(opened.error == nil)
        #expect(MediaURLList.urls(in: opened.payload, keyPaths: RichPushPayloadKeyPath.defaultMediaKeyPaths) == ["https://media.example/parcel.jpg"])
        #expect(!String(decoding: opened.payload.jsonData(), as: UTF8.self).contains("evil.example"))
        #expect(opened.payload["buttons"] == nil)
        let parsed = try RichPushNotificationPayload(json: opened.payload)
        #expect(parsed.alert?.title == "Your order shipped")
        #expect(parsed.alert?.body == "Parcel 4711")
        // What iOS itself reads from aps stays, and so does the clear push id (receipts).
        #expect(opened.payload["aps"]?["category"] == .string("orders"))
        #expect(parsed.isMutableContent)
        #expect(opened.payload["push_id"] == .string("o-4711"))
    }

    @Test func aPushIDInsideTheAlertStaysWhereTheExtensionLooksForIt() throws {
        let envelope = try PayloadCipher.encrypt(Self.secret, key: Self.key, kid: "k-2", pushID: "a-1")
        let payload: RichPushJSONValue = .object([
            "aps": .object(["alert": .object(["body": .string("New message"), "push_id": .string("a-1"), "image": .string("https://evil.example/x.jpg")])]),
            "enc": envelope.json,
        ])
        let opened = DecryptedPayload.open(payload, keys: Self.keys)
        #expect(opened.error == nil)
        #expect(opened.payload["aps"]?["alert"]?["push_id"] == .string("a-1"))
        #expect(opened.payload["aps"]?["alert"]?["image"] == nil)
        #expect(opened.payload["media-url"] == .string("https://media.example/parcel.jpg"))
    }

    @Test func aVersion2CiphertextMovedToAnotherPushFailsToDecrypt() throws {
        let envelope = try PayloadCipher.encrypt(Self.secret, key: Self.key, kid: "k-2", pushID: "o-4711")
        #expect(DecryptedPayload.open(Self.payload(pushID: "o-4711", envelope: envelope), keys: Self.keys).error == nil)
        // The attack: the same envelope under another push id, under none, or re-labelled v1.
        let moved = DecryptedPayload.open(Self.payload(pushID: "o-9999", envelope: envelope), keys: Self.keys)
        #expect(moved.error?.code == .badTag)
        #expect(moved.error?.message.contains("another push id") == true)
        #expect(moved.payload["media-url"] == nil)
        #expect(try RichPushNotificationPayload(json: moved.payload).alert?.title == "Shop")
        guard case .object(var bare) = Self.payload(pushID: "x", envelope: envelope) else { return }
        bare["push_id"] = nil
        #expect(DecryptedPayload.open(.object(bare), keys: Self.keys).error?.code == .badTag)
        var downgraded = envelope
        downgraded.version = 1
        #expect(DecryptedPayload.open(Self.payload(pushID: "o-4711", envelope: downgraded), keys: Self.keys).error?.code == .badTag)
        // An integer push id is bound by its decimal digits.
        let numeric = try PayloadCipher.encrypt(Self.secret, key: Self.key, kid: "k-2", pushID: "2018001")
        let withNumber: RichPushJSONValue = .object(["aps": .object(["alert": .string("New message")]), "push_id": .int(2018001), "enc": numeric.json])
        #expect(DecryptedPayload.open(withNumber, keys: Self.keys).error == nil)
    }

    @Test func aVersion1EnvelopeWithoutAssociatedDataIsStillRead() throws {
        // Made as before version 2 (no AAD), by hand: the device must still open it.
        let iv = Data(repeating: 5, count: 12)
        let sealed = try AESGCM.seal(RichPushJSONValue.object(Self.secret).jsonData(sortedKeys: true), key: Self.key, nonce: iv)
        let v1 = EncryptedEnvelope(version: 1, kid: "k-2", iv: iv, ciphertext: sealed.ciphertext, tag: sealed.tag)
        let opened = DecryptedPayload.open(Self.payload(pushID: "old-1", envelope: v1), keys: Self.keys)
        #expect(opened.error == nil)
        #expect(opened.payload["media-url"] == .string("https://media.example/parcel.jpg"))
    }

    @Test func pythonCryptographyWithThePushIDAsAssociatedDataMakesAVersion2EnvelopeTheDeviceOpens() async throws {
        let script = """
            import sys, json, base64, os
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            key = base64.b64decode(sys.argv[1]); iv = os.urandom(12)
            out = AESGCM(key).encrypt(iv, json.dumps({"title": "From Python"}).encode(), sys.argv[2].encode())
            print(json.dumps({"v": 2, "kid": "k-2", "iv": base64.b64encode(iv).decode(),
                              "ct": base64.b64encode(out[:-16]).decode(), "tag": base64.b64encode(out[-16:]).decode()}))
            """
        let result = try await DepthSupport.python(script, [Self.key.base64EncodedString(), "py-7"])
        #expect(result.status == 0, "\(result.stderr)")
        let envelope = try EncryptedEnvelope(json: try RichPushJSONValue.parse(Data(result.stdout.utf8)))
        let opened = DecryptedPayload.open(Self.payload(pushID: "py-7", envelope: envelope), keys: Self.keys)
        #expect(opened.error == nil)
        #expect(try RichPushNotificationPayload(json: opened.payload).alert?.title == "From Python")
        #expect(DecryptedPayload.open(Self.payload(pushID: "py-8", envelope: envelope), keys: Self.keys).error?.code == .badTag)
    }
}
