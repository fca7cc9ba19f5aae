import Foundation

/// Normalises the media URLs found in payloads, the way a browser would before sending them.
@_spi(RichPushInternal)
public enum MediaURL {
    /// ASCII characters left as they are: RFC 3986 unreserved and reserved characters.
    private static let allowed: Set<UInt8> = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8)
    )

    /// Percent-encodes what a URL cannot hold, leaving existing `%XX` escapes alone.
    ///
    /// Spaces and non-ASCII characters (e.g. a Japanese path) become UTF-8 `%XX` escapes; a `%`
    /// that does not start a valid escape becomes `%25`; valid escapes are never encoded twice.
    /// - Parameter raw: the string from the payload (surrounding whitespace is trimmed).
    /// - Returns: the encoded string.
    public static func percentEncode(_ raw: String) -> String {
        let bytes = Array(raw.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        var out = ""
        out.reserveCapacity(bytes.count)
        var i = 0
        func isHex(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
        }
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%"), i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                out.unicodeScalars.append(contentsOf: [Unicode.Scalar(b), Unicode.Scalar(bytes[i + 1]), Unicode.Scalar(bytes[i + 2])])
                i += 3
                continue
            }
            if allowed.contains(b) {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += String(format: "%%%02X", b)
            }
            i += 1
        }
        return out
    }

    /// Parses and normalises a media URL from a payload.
    ///
    /// - Parameters:
    ///   - raw: the string from the payload.
    ///   - base: the URL a relative reference is resolved against (redirect `Location`s), or `nil`.
    /// - Returns: an absolute `http`/`https` URL with a host.
    /// - Throws: `FetchFailure` with reason `bad_url` when it cannot be parsed, has no http(s)
    ///   scheme, or has no host.
    public static func normalize(_ raw: String, relativeTo base: URL? = nil) throws -> URL {
        let encoded = percentEncode(raw)
        guard !encoded.isEmpty, let parsed = URL(string: encoded, relativeTo: base)?.absoluteURL else {
            throw FetchFailure(.badURL, "the media URL '\(raw)' cannot be parsed")
        }
        let scheme = parsed.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw FetchFailure(.badURL, "the media URL '\(raw)' is not http(s); use an https:// URL")
        }
        guard let host = parsed.host, !host.isEmpty else {
            throw FetchFailure(.badURL, "the media URL '\(raw)' has no host")
        }
        return parsed
    }
}
