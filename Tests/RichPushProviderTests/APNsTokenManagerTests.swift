import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

@Suite struct APNsTokenManagerTests {
    func manager(_ clock: ManualClock) async throws -> (APNsTokenManager, URL) {
        let dir = try Fixtures.temporaryDirectory("jwt")
        let key = dir.appendingPathComponent("AuthKey_ABC123DEFG.p8")
        try await MockAPNs.makeKey(at: key)
        return (APNsTokenManager(signer: try ES256Signer(contentsOf: key), keyID: "ABC123DEFG", teamID: "TEAM123456", clock: clock), dir)
    }

    func decode(_ part: Substring) throws -> RichPushJSONValue {
        var s = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return try RichPushJSONValue.parse(try #require(Data(base64Encoded: s)))
    }

    @Test func theTokenIsAnES256JWTWithKidIssAndIat() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
        let (m, dir) = try await manager(clock)
        defer { try? FileManager.default.removeItem(at: dir) }
        let token = try await m.token()
        let parts = token.jwt.split(separator: ".")
        #expect(parts.count == 3)
        #expect(try decode(parts[0]) == .object(["alg": .string("ES256"), "kid": .string("ABC123DEFG")]))
        #expect(try decode(parts[1]) == .object(["iss": .string("TEAM123456"), "iat": .int(1_700_000_000)]))
        var sig = String(parts[2]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while sig.count % 4 != 0 { sig += "=" }
        #expect(Data(base64Encoded: sig)?.count == 64)  // raw r||s, not DER
    }

    @Test func theTokenIsCachedAndRenewedOnlyAfter50Minutes() async throws {
        let clock = ManualClock()
        let (m, dir) = try await manager(clock)
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try await m.token()
        clock.advance(by: 49 * 60)
        #expect(try await m.token() == first)
        clock.advance(by: 2 * 60)
        let second = try await m.token()
        #expect(second != first)
        #expect(await m.tokensIssued == 2)
    }

    @Test func aForcedRenewalHappensAtMostOnceIn20Minutes() async throws {
        let clock = ManualClock()
        let (m, dir) = try await manager(clock)
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try await m.token()
        let renewed = try #require(try await m.renew(afterExpired: first.jwt))
        #expect(renewed != first)
        // Another request that saw the old token gets the renewed one, no new signature.
        #expect(try await m.renew(afterExpired: first.jwt) == renewed)
        clock.advance(by: 10 * 60)
        #expect(try await m.renew(afterExpired: renewed.jwt) == nil)
        clock.advance(by: 11 * 60)
        #expect(try await m.renew(afterExpired: renewed.jwt) != nil)
        #expect(await m.tokensIssued == 3)
    }

    @Test func aKeyThatIsNotP256IsRefusedWithoutPrintingIt() throws {
        let pem = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n"
        do {
            _ = try ES256Signer(pem: pem, label: "AuthKey_TEST.p8")
            Issue.record("accepted a broken key")
        } catch let error as RichPushError {
            #expect(error.code == .invalidKey)
            #expect(error.message.contains("AuthKey_TEST.p8"))
            #expect(!error.message.contains("c2VjcmV0"))
        }
    }
}
