import CMicroHTTPD
import Foundation

/// libmicrohttpd's request behind the shim: read into a `ServerRequest` on the connection's
/// thread, answered once by `HTTPServer` (from any thread; the shim resumes a suspended
/// connection).
// @unchecked: a C pointer the shim keeps alive, and locks, until the one answer
struct MicroHTTPDRequest: @unchecked Sendable {
    private let raw: OpaquePointer
    private let onRespond: @Sendable (Int, Double) -> Void

    init(raw: OpaquePointer, onRespond: @escaping @Sendable (Int, Double) -> Void) {
        self.raw = raw
        self.onRespond = onRespond
    }

    /// The request as a value: line, headers, query, peer; with `body`, the body read so far.
    ///
    /// - Parameter body: whether to copy the body (the handler) or not (the gate: none is read yet).
    /// - Returns: the request.
    func read(body: Bool) -> ServerRequest {
        let method = String(cString: rp_request_method(raw))
        let headers = pairs(query: false).map { (name: $0.0, value: $0.1 ?? "") }
        let peer = String(cString: rp_request_peer(raw))
        var request: ServerRequest
        if let target = rp_request_raw_uri(raw) {
            // The target as sent, read strictly (`RequestTarget`): libmicrohttpd's decoded path
            // stops at a `%00`, and its arguments keep the first of two with one name.
            request = ServerRequest(
                method: method, target: String(decoding: UnsafeRawBufferPointer(start: target, count: strlen(target)), as: UTF8.self), headers: headers,
                peer: peer, openConnections: Int(rp_request_open_connections(raw)))
        } else {
            request = ServerRequest(
                method: method, path: String(cString: rp_request_path(raw)), headers: headers, query: [:], peer: peer,
                openConnections: Int(rp_request_open_connections(raw)))
            for (name, value) in pairs(query: true) {
                if let value, request.query[name] == nil { request.query[name] = value }
            }
        }
        if body {
            var length = 0
            if let bytes = rp_request_body(raw, &length), length > 0 { request.body = Data(bytes: bytes, count: length) }
            request.bodyTooLarge = rp_request_body_too_large(raw) != 0
        }
        return request
    }

    /// Every header or query argument, in order.
    private func pairs(query: Bool) -> [(String, String?)] {
        final class Collected {
            var pairs: [(String, String?)] = []
        }
        let collected = Collected()
        let visit: rp_pair_visitor = { context, name, value, length in
            guard let context, let name else { return }
            let box = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
            // By length, not up to the first NUL: `%00` stays in the value for the endpoint to refuse.
            let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) }
            box.pairs.append((String(cString: name), text))
        }
        withExtendedLifetime(collected) {
            rp_request_each(raw, query ? 1 : 0, visit, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.pairs
    }

    /// Sends the response. `HTTPServer` calls it exactly once per request.
    ///
    /// - Parameter response: the response.
    func respond(_ response: ServerResponse) {
        let seconds = Double(rp_monotonic_ns() &- rp_request_start_ns(raw)) / 1e9
        let status = response.status
        if let file = response.file, let fd = file.take() {
            let headers = response.headers.map { "\(Self.clean($0.name)): \(Self.clean($0.value))" }.joined(separator: "\n")
            onRespond(status, seconds)
            rp_request_respond_fd(raw, UInt32(status), response.contentType, fd, UInt64(file.length), headers.isEmpty ? nil : headers)
            return
        }
        if response.body.isEmpty && response.headers.isEmpty {
            // The common case (202 for a receipt): no body, no headers, no copies.
            onRespond(status, seconds)
            rp_request_respond_empty(raw, UInt32(status))
            return
        }
        let headers =
            response.headers.isEmpty
            ? nil
            : response.headers.map { "\(Self.clean($0.name)): \(Self.clean($0.value))" }.joined(separator: "\n")
        onRespond(status, seconds)
        response.body.withUnsafeBytes { buffer in
            let base = buffer.bindMemory(to: UInt8.self).baseAddress
            rp_request_respond(raw, UInt32(status), response.contentType, base, buffer.count, headers)
        }
    }

    /// Removes CR/LF so a header value cannot split the response.
    private static func clean(_ s: String) -> String {
        String(s.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }
}
