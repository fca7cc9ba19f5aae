import Foundation

/// Checks how a request says where its body ends, before anything is read: the ambiguities that
/// request smuggling and stuck connections come from are refused (RFC 9112 §6).
///
/// - `Transfer-Encoding` other than exactly `chunked` → `501` (libmicrohttpd would otherwise wait
///   for a body it cannot delimit), and the connection is closed.
/// - `Transfer-Encoding` together with `Content-Length` → `400`.
/// - Several `Content-Length` values that differ (two lines, or a list in one) → `400`; the same
///   value repeated is one length (RFC 9112 §6.3 allows either).
/// - A `Content-Length` that is not a plain decimal number → `400`; one past 2^64 − 1 → `413`.
///   Parsed without trapping, digit by digit with overflow checks.
enum RequestFraming {
    /// The body length a request declares: `nil` without `Content-Length` (no body, or chunked).
    ///
    /// - Parameters:
    ///   - contentLengths: every `Content-Length` header value, in order.
    ///   - transferEncodings: every `Transfer-Encoding` header value, in order.
    /// - Returns: the declared length, or the refusal to send.
    static func declaredLength(contentLengths: [String], transferEncodings: [String]) -> Result<UInt64?, HTTPResponseError> {
        if !transferEncodings.isEmpty {
            let codings = transferEncodings.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard codings == ["chunked"] else {
                let shown = transferEncodings.joined(separator: ", ").prefix(64)
                return .failure(
                    HTTPResponseError(
                        status: 501, code: "unsupported_transfer_encoding",
                        message: "Transfer-Encoding '\(shown)' is not supported; send the body with Content-Length (or Transfer-Encoding: chunked)"))
            }
            guard contentLengths.isEmpty else {
                return .failure(
                    HTTPResponseError(
                        status: 400, code: "ambiguous_length",
                        message: "the request has both Transfer-Encoding and Content-Length; send one of them"))
            }
            return .success(nil)
        }
        // The common case, one plain number, without splitting or trimming.
        if contentLengths.count == 1, case .value(let n)? = parse(contentLengths[0]) { return .success(n) }
        var length: UInt64?
        for value in contentLengths {
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let text = item.trimmingCharacters(in: .whitespaces)
                guard let parsed = parse(text) else {
                    return .failure(
                        HTTPResponseError(
                            status: 400, code: "invalid_content_length",
                            message: "Content-Length '\(text.prefix(32))' is not a whole number of bytes"))
                }
                guard case .value(let n) = parsed else {
                    return .failure(
                        HTTPResponseError(
                            status: 413, code: "too_large", message: "Content-Length \(text.prefix(32)) is past any body this server reads"))
                }
                if let length, length != n {
                    return .failure(
                        HTTPResponseError(
                            status: 400, code: "conflicting_content_length",
                            message: "the request declares different Content-Length values (\(length) and \(n)); send one"))
                }
                length = n
            }
        }
        return .success(length)
    }

    private enum Parsed {
        case value(UInt64)
        case overflow
    }

    /// Decimal digits only (no sign, no spaces inside); `nil` when not a number.
    private static func parse(_ text: String) -> Parsed? {
        guard !text.isEmpty else { return nil }
        var value: UInt64 = 0
        var overflow = false
        for byte in text.utf8 {
            guard (48...57).contains(byte) else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (plus, o2) = times.addingReportingOverflow(UInt64(byte - 48))
            if o1 || o2 { overflow = true }
            value = plus
        }
        return overflow ? .overflow : .value(value)
    }

}
