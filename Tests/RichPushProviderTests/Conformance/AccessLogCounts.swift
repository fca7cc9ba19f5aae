import Foundation

/// Requests per device token, read from a server's access log whose lines hold the request path
/// (`/3/device/<token>`, one line per request the server processed).
enum AccessLogCounts {
    /// Counts each token's lines.
    /// - Parameter file: the access log.
    /// - Returns: token → requests.
    static func perToken(_ file: URL) -> [String: Int] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [:] }
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            guard let range = line.range(of: "/3/device/") else { continue }
            let token = line[range.upperBound...].prefix { $0.isHexDigit }
            counts[String(token), default: 0] += 1
        }
        return counts
    }
}
