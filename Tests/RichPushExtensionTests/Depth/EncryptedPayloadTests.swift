import Foundation
import RichPushTestSupport
import Testing

@_spi(RichPushInternal) @testable import RichPushExtension

@Suite("Encrypted payloads (AES-256-GCM envelope)")
struct EncryptedPayloadTests {
    static let key = Data((0..<32).map { UInt8($0 &* 7 &+ 3) })
    static let keys: FileKeyProvider = {
        do { return try FileKeyProvider(keys: ["k-2": key]) } catch { fatalError("\(error)") }
    }()
    static let plaintext: [String: RichPushJSONValue] = [
        "title": .string("秘密のタイトル"), "body": .string("Your order shipped"),
        "media-url": .string("https://media.example/p.jpg"), "push_id": .string("p-77"),
    ]

    @Test func anEnvelopeDecryptsBackToItsPlaintext() throws {
        let envelope = try PayloadCipher.encrypt(Self.plaintext, key: Self.key, kid: "k-2")
        #expect(envelope.iv.count == 12)
        #expect(envelope.tag.count == 16)
        let reread = try EncryptedEnvelope(json: envelope.json)
        #expect(reread == envelope)
        #expect(try PayloadCipher.decrypt(reread, keys: Self.keys) == Self.plaintext)
    }

    @Test func twoEncryptionsOfTheSamePlaintextUseDifferentIVs() throws {
        let a = try PayloadCipher.encrypt(Self.plaintext, key: Self.key, kid: "k-2")
        let b = try PayloadCipher.encrypt(Self.plaintext, key: Self.key, kid: "k-2")
        #expect(a.iv != b.iv)
        #expect(a.ciphertext != b.ciphertext)
    }

    @Test func whatSwiftEncryptsPythonCryptographyDecrypts() async throws {
        let envelope = try PayloadCipher.encrypt(Self.plaintext, key: Self.key, kid: "k-2")
        let script = """
            import sys, json, base64
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            env = json.loads(sys.argv[1]); key = base64.b64decode(sys.argv[2])
            pt = AESGCM(key).decrypt(base64.b64decode(env["iv"]), base64.b64decode(env["ct"]) + base64.b64decode(env["tag"]), None)
            sys.stdout.write(pt.decode())
            """
        let env = String(decoding: envelope.json.jsonData(), as: UTF8.self)
        let result = try await DepthSupport.python(script, [env, Self.key.base64EncodedString()])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try RichPushJSONValue.parse(Data(result.stdout.utf8)) == .object(Self.plaintext))
    }

    @Test func whatPythonCryptographyEncryptsSwiftDecrypts() async throws {
        let script = """
            import sys, json, base64, os
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            key = base64.b64decode(sys.argv[1]); iv = os.urandom(12)
            out = AESGCM(key).encrypt(iv, json.dumps({"title": "From Python", "body": "ok", "push_id": "py-1"}).encode(), None)
            print(json.dumps({"v": 1, "kid": "k-2", "iv": base64.b64encode(iv).decode(),
                              "ct": base64.b64encode(out[:-16]).decode(), "tag": base64.b64encode(out[-16:]).decode()}))
            """
        let result = try await DepthSupport.python(script, [Self.key.base64EncodedString()])
        #expect(result.status == 0, "\(result.stderr)")
        let envelope = try EncryptedEnvelope(json: try RichPushJSONValue.parse(Data(result.stdout.utf8)))
        let plaintext = try PayloadCipher.decrypt(envelope, keys: Self.keys)
        #expect(plaintext["title"] == .string("From Python"))
        #expect(plaintext["push_id"] == .string("py-1"))
    }

    @Test func theNISTTestVectorEncryptsToItsKnownCiphertextAndTag() throws {
        // NIST GCM test vectors (gcmEncryptExtIV256.rsp), Count 0 of Keylen 256, PTlen 128, AADlen 0.
        let key = try #require(Data(hex: "31bdadd96698c204aa9ce1448ea94ae1fb4a9a0b3c9d773b51bb1822666b8f22"))
        let iv = try #require(Data(hex: "0d18e06c7c725ac9e362e1ce"))
        let pt = try #require(Data(hex: "2db5168e932556f8089a0622981d017d"))
        let sealed = try AESGCM.seal(pt, key: key, nonce: iv)
        #expect(sealed.ciphertext == Data(hex: "fa4362189661d163fcd6a56d8bf0405a"))
        #expect(sealed.tag == Data(hex: "d636ac1bbedd5cc3ee727dc2ab4a9489"))
        #expect(try AESGCM.open(ciphertext: sealed.ciphertext, tag: sealed.tag, key: key, nonce: iv) == pt)
    }

    // MARK: - Each failure has its sub-reason

    func failure(_ mutate: (inout [String: RichPushJSONValue]) throws -> Void, keys: (any RichPushKeyProvider)? = EncryptedPayloadTests.keys) throws
        -> DecryptError.Code?
    {
        var enc = try #require(try PayloadCipher.encrypt(Self.plaintext, key: Self.key, kid: "k-2").json.objectValue)
        try mutate(&enc)
        let opened = DecryptedPayload.open(.object(["aps": .object(["alert": .string("New message")]), "enc": .object(enc)]), keys: keys)
        return opened.error?.code
    }

    @Test func anUnknownKidFailsWithUnknownKid() throws {
        #expect(try failure { $0["kid"] = .string("k-9") } == .unknownKid)
        #expect(try failure({ _ in }, keys: nil) == .unknownKid)
    }

    @Test func anAlteredCiphertextOrTagFailsWithBadTag() throws {
        #expect(
            try failure { enc in
                var ct = try #require(Data(base64Encoded: enc["ct"]?.stringValue ?? ""))
                ct[0] ^= 0x01
                enc["ct"] = .string(ct.base64EncodedString())
            } == .badTag)
        #expect(
            try failure { enc in
                var tag = try #require(Data(base64Encoded: enc["tag"]?.stringValue ?? ""))
                tag[15] ^= 0x80
                enc["tag"] = .string(tag.base64EncodedString())
            } == .badTag)
        let otherKeys = try FileKeyProvider(keys: ["k-2": Data(repeating: 9, count: 32)])
        #expect(try failure({ _ in }, keys: otherKeys) == .badTag)
    }

    @Test func aShortenedTagIVOrEmptyCiphertextFailsWithTruncated() throws {
        #expect(
            try failure { enc in
                let tag = try #require(Data(base64Encoded: enc["tag"]?.stringValue ?? ""))
                enc["tag"] = .string(tag.prefix(8).base64EncodedString())
            } == .truncated)
        #expect(try failure { $0["iv"] = .string(Data(count: 8).base64EncodedString()) } == .truncated)
        #expect(try failure { $0["ct"] = .string("") } == .truncated)
    }

    @Test func nonBase64FieldsFailWithBadBase64() throws {
        #expect(try failure { $0["ct"] = .string("not base64!!") } == .badBase64)
        #expect(try failure { $0["iv"] = .string("%%%") } == .badBase64)
    }

    @Test func aPlaintextThatIsNotAJSONObjectFailsWithBadJSON() throws {
        for raw in ["not json", "[1,2,3]", "\"a string\""] {
            let iv = Data(repeating: 1, count: 12)
            let sealed = try AESGCM.seal(Data(raw.utf8), key: Self.key, nonce: iv)
            let envelope = EncryptedEnvelope(kid: "k-2", iv: iv, ciphertext: sealed.ciphertext, tag: sealed.tag)
            #expect(throws: DecryptError.self) { try PayloadCipher.decrypt(envelope, keys: Self.keys) }
            let opened = DecryptedPayload.open(.object(["enc": envelope.json]), keys: Self.keys)
            #expect(opened.error?.code == .badJSON)
        }
    }

    @Test func anotherVersionFailsWithBadVersion() throws {
        #expect(try failure { $0["v"] = .int(3) } == .badVersion)
        #expect(try failure { $0["v"] = .int(0) } == .badVersion)
        #expect(try failure { $0["v"] = nil } == .badVersion)
    }

    @Test func aMissingFieldFailsWithBadEnvelope() throws {
        #expect(try failure { $0["tag"] = nil } == .badEnvelope)
        let opened = DecryptedPayload.open(.object(["enc": .string("x")]), keys: Self.keys)
        #expect(opened.error?.code == .badEnvelope)
    }

    // MARK: - Merging into the payload

    @Test func decryptedTextReplacesTheGenericAlertAndOtherKeysBecomeTopLevel() throws {
        let envelope = try PayloadCipher.encrypt(Self.plaintext, key: Self.key, kid: "k-2")
        let payload: RichPushJSONValue = .object([
            "aps": .object(["alert": .string("New message"), "mutable-content": .int(1)]),
            "enc": envelope.json,
        ])
        let opened = DecryptedPayload.open(payload, keys: Self.keys)
        #expect(opened.error == nil)
        #expect(opened.wasEncrypted)
        let parsed = try RichPushNotificationPayload(json: opened.payload)
        #expect(parsed.alert?.title == "秘密のタイトル")
        #expect(parsed.alert?.body == "Your order shipped")
        #expect(opened.payload["media-url"] == .string("https://media.example/p.jpg"))
        #expect(opened.payload["push_id"] == .string("p-77"))
        #expect(opened.payload["enc"] == nil)
        #expect(parsed.isMutableContent)
    }

    @Test func aFailureKeepsTheGenericAlertAndNeverTheCiphertextOrThePlaintextMedia() throws {
        var enc = try #require(try PayloadCipher.encrypt(Self.plaintext, key: Self.key, kid: "k-2").json.objectValue)
        enc["kid"] = .string("k-unknown")
        let payload: RichPushJSONValue = .object([
            "aps": .object(["alert": .object(["title": .string("Shop"), "body": .string("New message")])]),
            "enc": .object(enc),
        ])
        let opened = DecryptedPayload.open(payload, keys: Self.keys)
        #expect(opened.error?.code == .unknownKid)
        let parsed = try RichPushNotificationPayload(json: opened.payload)
        #expect(parsed.alert?.title == "Shop")
        #expect(parsed.alert?.body == "New message")
        #expect(opened.payload["enc"] == nil)
        #expect(opened.payload["media-url"] == nil)
        let text = String(decoding: opened.payload.jsonData(), as: UTF8.self)
        #expect(!text.contains(enc["ct"]?.stringValue ?? "--"))
    }

    @Test func aPayloadWithoutEncIsLeftAsItIs() {
        let payload: RichPushJSONValue = .object(["aps": .object(["alert": .string("hi")])])
        let opened = DecryptedPayload.open(payload, keys: nil)
        #expect(opened.payload == payload)
        #expect(!opened.wasEncrypted)
        #expect(opened.error == nil)
    }

    // MARK: - Key file

    @Test func aKeyFileWithAShortKeyIsAConfigurationError() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("keys.json")
        try Data(#"{"k-1": "\#(Data(count: 16).base64EncodedString())"}"#.utf8).write(to: file)
        let error = #expect(throws: RichPushError.self) { try FileKeyProvider(contentsOf: file) }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("32 bytes") == true)
        try Data("[]".utf8).write(to: file)
        #expect(throws: RichPushError.self) { try FileKeyProvider(contentsOf: file) }
    }
}

extension Data {
    /// Bytes from a hex string (tests only).
    init?(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }
}
