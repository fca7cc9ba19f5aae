import Foundation
import RichPushProvider

/// The `RichPush-Signature` header, Stripe's scheme exactly: `t=<UNIX seconds>,v1=<hex
/// HMAC-SHA256>`, where the MAC is computed under the endpoint's secret (its UTF-8 bytes) over
/// the timestamp, a full stop and the raw body: `"\(t).\(body)"`. A receiver recomputes it, compares
/// in constant time, and refuses timestamps more than 5 minutes from its clock (replays).
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "RichPush-Signature"
    /// The tolerance receivers are told to apply, seconds (Stripe's default).
    public static let toleranceSeconds = 300

    /// The header value for `body` sent at `timestamp`.
    ///
    /// - Parameters:
    ///   - body: the raw request body.
    ///   - secret: the endpoint's secret.
    ///   - timestamp: UNIX seconds (the attempt's time: each retry is signed anew).
    /// - Returns: `t=…,v1=…`.
    /// - Throws: `RichPushError` `signing` when libcrypto fails.
    public static func header(body: Data, secret: Data, timestamp: Int) throws -> String {
        let mac = try HMACSHA256.authenticate(Data("\(timestamp).".utf8) + body, key: secret)
        return "t=\(timestamp),v1=" + hex(mac)
    }

    /// Whether `header` is a valid signature of `body` under `secret` within the tolerance.
    ///
    /// - Parameters:
    ///   - header: the `RichPush-Signature` value.
    ///   - body: the raw body.
    ///   - secret: the secret.
    ///   - nowSeconds: the receiver's clock, UNIX seconds.
    ///   - tolerance: the largest allowed distance between `t` and `nowSeconds`, seconds.
    /// - Returns: `true` when one `v1` matches and `t` is within the tolerance.
    public static func verify(header: String, body: Data, secret: Data, nowSeconds: Int, tolerance: Int = toleranceSeconds) -> Bool {
        var timestamp: Int?
        var signatures: [Data] = []
        for item in header.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int(pair[1]) }
            if pair[0] == "v1", let mac = bytes(hex: pair[1]) { signatures.append(mac) }
        }
        guard let timestamp, abs(nowSeconds - timestamp) <= tolerance else { return false }
        let message = Data("\(timestamp).".utf8) + body
        return signatures.contains { HMACSHA256.verify($0, message: message, key: secret) }
    }

    private static func hex(_ data: Data) -> String {
        data.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    private static func bytes(hex: String) -> Data? {
        let scalars = Array(hex.utf8)
        guard scalars.count % 2 == 0 else { return nil }
        var out = Data(capacity: scalars.count / 2)
        var index = 0
        while index < scalars.count {
            guard let byte = UInt8(String(decoding: scalars[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
            index += 2
        }
        return out
    }
}
