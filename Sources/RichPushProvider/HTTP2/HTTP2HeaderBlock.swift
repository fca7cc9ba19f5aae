#if canImport(CNGHTTP2) && os(Linux)
import CNGHTTP2
import Foundation

/// The request header fields of one kind of request, laid out once as nghttp2 name/value pairs
/// (`nghttp2_nv`), with a slot for `:path`: the streams of a batch (the same headers, one path
/// per device token) share one block, so a request costs no header copying of its own.
///
/// HPACK, as Apple asks of APNs clients (libnghttp2 encodes; these are its defaults plus one
/// flag): `:path` is a literal without indexing (the value differs per token), `authorization`
/// is never indexed (Apple: "a literal header field without indexing"), `apns-id` carries
/// nghttp2's no-index flag (a new value per notification would only churn APNs' small dynamic
/// table), every other field is indexed, so the 2nd request onwards sends them as a few bytes.
///
/// Names are lower-cased (RFC 9113 §8.2.1). Loop thread only, after `init`.
final class HTTP2HeaderBlock {
    /// The fields it was made from, to tell whether the next request can share it.
    let method: String
    let authority: String
    let scheme: String
    let fields: [(name: String, value: String)]

    private let bytes: UnsafeMutablePointer<UInt8>
    /// `:method`, `:scheme`, `:authority`, `:path` (filled per submit), then the fields.
    let pairs: UnsafeMutablePointer<nghttp2_nv>
    let count: Int

    init(method: String, scheme: String, authority: String, fields: [(name: String, value: String)]) {
        self.method = method
        self.scheme = scheme
        self.authority = authority
        self.fields = fields
        var entries: [(name: [UInt8], value: [UInt8], flags: UInt8)] = [
            (Array(":method".utf8), Array(method.utf8), 0),
            (Array(":scheme".utf8), Array(scheme.utf8), 0),
            (Array(":authority".utf8), Array(authority.utf8), 0),
            (Array(":path".utf8), [], 0),
        ]
        for field in fields {
            let name = Array(field.name.lowercased().utf8)
            // Connection-specific fields are malformed in HTTP/2 (RFC 9113 §8.2.2).
            if ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"].contains(String(decoding: name, as: UTF8.self)) {
                continue
            }
            let flags = name == Array("apns-id".utf8) ? UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) : 0
            entries.append((name, Array(field.value.utf8), flags))
        }
        let total = entries.reduce(0) { $0 + $1.name.count + $1.value.count }
        bytes = .allocate(capacity: max(1, total))
        pairs = .allocate(capacity: entries.count)
        count = entries.count
        var offset = 0
        for (index, entry) in entries.enumerated() {
            let name = bytes + offset
            entry.name.withUnsafeBufferPointer { if let base = $0.baseAddress { name.update(from: base, count: $0.count) } }
            offset += entry.name.count
            let value = bytes + offset
            entry.value.withUnsafeBufferPointer { if let base = $0.baseAddress { value.update(from: base, count: $0.count) } }
            offset += entry.value.count
            pairs[index] = nghttp2_nv(name: name, value: value, namelen: entry.name.count, valuelen: entry.value.count, flags: entry.flags)
        }
    }

    deinit {
        bytes.deallocate()
        pairs.deallocate()
    }

    /// Whether a request with these parts can use this block.
    func matches(method: String, scheme: String, authority: String, fields: [(name: String, value: String)]) -> Bool {
        guard method == self.method, scheme == self.scheme, authority == self.authority, fields.count == self.fields.count else { return false }
        for (a, b) in zip(fields, self.fields) where a.name != b.name || a.value != b.value { return false }
        return true
    }

    /// Calls `body` with the pairs for one request (`:path` = the UTF-8 of `source` from byte
    /// `start` on); nghttp2 copies them.
    func withPairs<R>(path source: String, from start: Int, _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        var source = source
        return source.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, start < utf8.count else {
                pairs[3].value = UnsafeMutablePointer(mutating: Self.slash.utf8Start)
                pairs[3].valuelen = 1
                return body(UnsafePointer(pairs), count)
            }
            pairs[3].value = UnsafeMutablePointer(mutating: base + start)
            pairs[3].valuelen = utf8.count - start
            return body(UnsafePointer(pairs), count)
        }
    }

    /// `/`, for a request whose path is empty.
    private static let slash: StaticString = "/"
}
#endif
