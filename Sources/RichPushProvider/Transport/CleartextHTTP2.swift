#if canImport(CCurl) && os(Linux)
import CCurl
#endif

/// Whether `http://` (HTTP/2 without TLS, "h2c", by prior knowledge) works with the libcurl this
/// process runs on, for `--apns-url http://…` (`richpush send`, `richpush serve`).
///
/// libcurl before 8.0.0 fails every request that reuses an h2c connection: the first request
/// gets its answer, every later one `curl 16` (HTTP/2 framing layer error), because on reuse it
/// stacks a second HTTP/2 layer on the connection (fixed in curl 8.0.0, curl/curl pull request
/// 10643). Debian 12's libcurl is 7.88.1 and has the bug, so such a URL is refused as a usage
/// error before any request, instead of failing all tokens but one.
public enum CleartextHTTP2 {
    /// The first libcurl version whose h2c connections can be reused (8.0.0, as 0xXXYYZZ).
    static let firstWorkingVersion: UInt32 = 0x08_00_00

    /// Whether h2c works here.
    public static var isSupported: Bool {
        #if canImport(CCurl) && os(Linux)
        return richpush_curl_version_num() >= firstWorkingVersion
        #else
        return true
        #endif
    }

    /// Why `url` cannot be used, or `nil` when it is not `http://` or h2c works here.
    ///
    /// - Parameters:
    ///   - url: the endpoint given (`--apns-url`).
    ///   - option: the option's name, for the message.
    /// - Returns: a message saying what is wrong and what to do, or `nil`.
    public static func problem(url: String, option: String) -> String? {
        guard url.lowercased().hasPrefix("http://"), !isSupported else { return nil }
        #if canImport(CCurl) && os(Linux)
        let version = String(cString: richpush_curl_version_text())
        #else
        let version = "this libcurl"
        #endif
        return
            "'\(option) \(url)': HTTP/2 without TLS (h2c) does not work with libcurl \(version): every request after the first on a connection fails (curl 16; fixed in libcurl 8.0.0); use an https:// endpoint (a test server's CA with the CA file option)"
    }
}
