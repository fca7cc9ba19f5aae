import CryptoKit
import Foundation

/// True when `header` (RichPush-Signature) signs `body` (the raw request bytes) under `secret`.
func verify(header: String, body: Data, secret: String, tolerance: TimeInterval = 300) -> Bool {
    var timestamp: String?
    var signatures: [String] = []
    for item in header.split(separator: ",") {
        let pair = item.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
        guard pair.count == 2 else { continue }
        if pair[0] == "t" { timestamp = pair[1] }
        if pair[0] == "v1" { signatures.append(pair[1]) }
    }
    guard let timestamp, let seconds = TimeInterval(timestamp), abs(Date().timeIntervalSince1970 - seconds) <= tolerance else {
        return false
    }
    let key = SymmetricKey(data: Data(secret.utf8))
    let message = Data((timestamp + ".").utf8) + body
    return signatures.contains { signature in
        guard let mac = Data(hexString: signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: key)  // constant time
    }
}

extension Data {
    /// Bytes from hex digits, `nil` when `hexString` is not hex.
    init?(hexString: String) {
        let digits = Array(hexString.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(bytes)
    }
}
