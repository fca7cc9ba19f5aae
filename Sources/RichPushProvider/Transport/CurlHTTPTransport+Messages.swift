#if canImport(CCurl) && os(Linux)
import CCurl
import Foundation
import RichPushCore

/// Header parsing and error messages of `CurlHTTPTransport`.
extension CurlHTTPTransport {
    /// Splits `Name: value\r\n` into a lower-cased name and a trimmed value (bytes, no Foundation:
    /// this runs for every response header).
    static func parseHeaderLine(_ bytes: UnsafeRawBufferPointer) -> (name: String, value: String)? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            !(bytes.count >= 5 && bytes[0] == UInt8(ascii: "H") && bytes[1] == UInt8(ascii: "T") && bytes[4] == UInt8(ascii: "/"))
        else { return nil }
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
        var start = colon + 1
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        let name = String(decoding: bytes[0..<colon].map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
        return (name, String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
    }

    static func redact(_ url: String) -> String {
        // The device token is in the path; show only its start.
        guard let range = url.range(of: "/3/device/") else { return url }
        let token = url[range.upperBound...]
        return String(url[..<range.upperBound]) + token.prefix(8) + (token.count > 8 ? "…" : "")
    }

    /// `tls_configuration` for what retrying cannot change, `connection_failed` for no connection.
    static func errorCode(_ code: CURLcode) -> RichPushError.Code {
        switch code {
        case CURLE_SSL_CERTPROBLEM, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .tlsConfiguration
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectionFailed
        default:
            return .transport
        }
    }

    /// What to change after a failed transfer, naming the settings as the program calls them.
    ///
    /// - Parameters:
    ///   - code: libcurl's result.
    ///   - names: the program's names for the CA file, endpoint and client certificate.
    /// - Returns: "; …" or "".
    static func hint(_ code: CURLcode, names: TransportSettingNames) -> String {
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE:
            return "; the server's certificate is not trusted: for a test server or proxy pass its CA with \(names.caFile)"
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST:
            return "; check the host and port (\(names.url)) and the network"
        case CURLE_OPERATION_TIMEDOUT:
            return "; the server did not answer in time"
        case CURLE_SSL_CERTPROBLEM:
            return
                "; the client certificate cannot be used: \(names.certificate) must be the APNs certificate as .p12, or PEM with its key (\(names.certificateKey)), and the right passphrase"
        default:
            return ""
        }
    }
}
#endif
