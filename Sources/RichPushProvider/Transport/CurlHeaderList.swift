#if canImport(CCurl) && os(Linux)
import CCurl

/// A `curl_slist` of request headers, shared by every transfer of a `CurlHTTP2Transport` that
/// sends the same header fields (an APNs batch: same topic, push type and provider token), freed
/// with its last user.
final class CurlHeaderList {
    let fields: [(name: String, value: String)]
    let list: UnsafeMutablePointer<curl_slist>?

    init(_ fields: [(name: String, value: String)]) {
        self.fields = fields
        var list: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Expect:")
        for (name, value) in fields { list = curl_slist_append(list, "\(name): \(value)") }
        self.list = list
    }

    func matches(_ other: [(name: String, value: String)]) -> Bool {
        fields.count == other.count && zip(fields, other).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    deinit { curl_slist_free_all(list) }
}
#endif
