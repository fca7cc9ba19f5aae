import Foundation

#if canImport(CCurl)
import CCurl
#elseif canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A standalone `ReceiptPoster`: libcurl where the `CCurl` shim is built (Linux: one wall-clock
/// timeout covering connect and answer), URLSession otherwise (iOS).
@_spi(RichPushInternal)
public struct HTTPFormPoster: ReceiptPoster {
    /// Makes a poster.
    public init() {}

    public func post(_ receipt: RichPushReceipt, to url: URL, timeout: Double) async -> Int? {
        let body = receipt.formEncoded()
        #if canImport(CCurl)
        // A thread of its own: a blocking transfer must not hold a concurrency-pool or GCD
        // worker thread (the extension's deadlines run on those).
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Self.curlPost(body: body, url: url, timeout: timeout))
            }
            thread.start()
        }
        #else
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        do {
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode
        } catch {
            return nil
        }
        #endif
    }

    #if canImport(CCurl)
    private static func curlPost(body: String, url: URL, timeout: Double) -> Int? {
        guard let handle = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(handle) }
        let discard: richpush_curl_data_cb = { _, size, count, _ in size * count }
        var headers: UnsafeMutablePointer<curl_slist>? = nil
        headers = curl_slist_append(headers, "Content-Type: application/x-www-form-urlencoded")
        defer { curl_slist_free_all(headers) }
        _ = richpush_curl_setopt_string(handle, CURLOPT_URL, url.absoluteString)
        _ = richpush_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, body)
        _ = richpush_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers)
        _ = richpush_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = richpush_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, max(1, Int(timeout * 1000)))
        _ = richpush_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        _ = richpush_curl_setopt_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
        _ = richpush_curl_setopt_write_cb(handle, discard)
        guard curl_easy_perform(handle) == CURLE_OK else { return nil }
        var status = 0
        _ = richpush_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return status > 0 ? status : nil
    }
    #endif
}
