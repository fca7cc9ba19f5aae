import Foundation

/// The parts of an HTTP `Cache-Control` response header (RFC 9111 §5.2.2) that decide whether
/// and how long the media cache keeps a response.
///
/// - `no-store` → not stored.
/// - `no-cache` → not stored: it requires revalidation before every reuse, and an extension that
///   must not make a request on a hit cannot revalidate.
/// - `max-age=N` → fresh for N seconds (`0` → not stored).
/// - none of these → fresh for `defaultFreshness` (our heuristic; RFC 9111 §4.2.2 allows one).
/// `private` and `public` are fine for a per-device cache; `s-maxage` is for shared caches and is
/// ignored; `Expires` is not read.
@_spi(RichPushInternal)
public struct CacheControl: Sendable, Equatable {
    /// How long a response without freshness information is kept: 24 hours, in seconds.
    public static let defaultFreshness: Double = 24 * 60 * 60

    /// `no-store` was present.
    public var noStore: Bool
    /// `no-cache` was present.
    public var noCache: Bool
    /// `max-age` in seconds, when present and a valid non-negative integer.
    public var maxAge: Int?

    /// Parses a header value; `nil` or an empty header has no directives.
    ///
    /// - Parameter header: the `Cache-Control` value, e.g. `public, max-age=600`.
    public init(header: String?) {
        noStore = false
        noCache = false
        maxAge = nil
        guard let header else { return }
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard let name = parts.first else { continue }
            switch name {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "max-age":
                if parts.count == 2 {
                    let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    // A duplicate or invalid max-age makes the response stale (RFC 9111 §4.2.1).
                    if let seconds = Int(value), seconds >= 0, maxAge == nil { maxAge = seconds } else { maxAge = 0 }
                }
            default: continue
            }
        }
    }

    /// How long the response may be served from the cache.
    ///
    /// - Returns: seconds of freshness, or `nil` when the response must not be stored.
    public var freshness: Double? {
        if noStore || noCache { return nil }
        if let maxAge { return maxAge > 0 ? Double(maxAge) : nil }
        return Self.defaultFreshness
    }
}
