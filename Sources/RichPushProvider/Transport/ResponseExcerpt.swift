import Foundation

/// The start of a response body that is not the provider's JSON (an HTML error page of a proxy
/// or load balancer), made safe to print once: at most `maximumCharacters`, control characters
/// shown as spaces, with its size and content type.
public enum ResponseExcerpt {
    /// Characters of the body shown at most.
    public static let maximumCharacters = 200

    /// Describes a response body.
    /// - Parameter response: the response.
    /// - Returns: e.g. `502, text/html, 1,204 bytes: "<html><head><title>502 Bad Gateway…"`.
    public static func make(_ response: TransportResponse) -> String {
        let text = String(decoding: response.body.prefix(maximumCharacters * 4), as: UTF8.self)
        var shown = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) }.prefix(maximumCharacters))
        if response.body.count > shown.utf8.count || response.bodyTruncated { shown += "…" }
        let size = response.bodyTruncated ? "over \(response.body.count) bytes" : "\(response.body.count) bytes"
        let type = response.headers["content-type"].map { ", \($0)" } ?? ""
        return "\(response.status)\(type), \(size): \"\(shown)\""
    }
}
