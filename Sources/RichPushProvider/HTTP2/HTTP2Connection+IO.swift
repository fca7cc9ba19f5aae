#if canImport(CNGHTTP2) && os(Linux)
import CNGHTTP2
import Foundation
import RichPushCore

/// Reading and writing: the socket (through TLS when there is TLS) between nghttp2 and the network.
extension HTTP2Connection {
    /// The most bytes of frames gathered before a write (a burst of requests goes out in few writes).
    static var writeChunk: Int { 256 * 1024 }

    func handle(events: UInt32) {
        let error = events & UInt32(EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
        switch phase {
        case .resolving, .closed:
            return
        case .connecting:
            let code = richpush_socket_error(fd)
            if code != 0 || (error && code == 0 && events & UInt32(EPOLLOUT.rawValue) == 0) {
                if let registration { loop.remove(fd: fd, id: registration) }
                registration = nil
                close(fd)
                fd = -1
                connectNext(lastError: String(cString: strerror(code == 0 ? ECONNREFUSED : code)))
                return
            }
            if events & UInt32(EPOLLOUT.rawValue) != 0 { connected() }
        case .handshaking:
            continueHandshake()
        case .open, .draining, .closing:
            if events & UInt32(EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
                readAvailable()
            }
            if phase != .closed, events & UInt32(EPOLLOUT.rawValue) != 0 {
                flush()
            }
        }
    }

    /// Watches exactly these events.
    func watch(_ events: UInt32) {
        guard let registration, events != watchedEvents else { return }
        watchedEvents = events
        loop.modify(fd: fd, id: registration, events: events)
    }

    /// Writes what nghttp2 has queued at the end of this round of the loop.
    func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        loop.atRoundEnd { [self] in
            flushScheduled = false
            flush()
        }
    }

    /// Reads until the socket has nothing more and hands the bytes to nghttp2.
    func readAvailable() {
        guard let session else { return }
        let buffer = HTTP2ReadBuffer.shared
        while phase != .closed {
            let count: Int
            if let ssl {
                ERR_clear_error()
                let result = SSL_read(ssl, buffer.pointer, Int32(buffer.capacity))
                if result <= 0 {
                    let error = SSL_get_error(ssl, result)
                    switch error {
                    case SSL_ERROR_WANT_READ:
                        scheduleFlush()
                        return
                    case SSL_ERROR_WANT_WRITE:
                        watch(UInt32(EPOLLIN.rawValue | EPOLLOUT.rawValue))
                        return
                    case SSL_ERROR_ZERO_RETURN:
                        readEnded(nil, tls: false)
                    case SSL_ERROR_SYSCALL:
                        let code = richpush_errno()
                        readEnded(code == 0 ? nil : String(cString: strerror(code)), tls: false)
                    default:
                        readEnded(HTTP2TLSContext.lastError(), tls: true)
                    }
                    return
                }
                count = Int(result)
            } else {
                let result = recv(fd, buffer.pointer, buffer.capacity, 0)
                if result <= 0 {
                    let code = richpush_errno()
                    if result < 0, code == EAGAIN || code == EWOULDBLOCK {
                        scheduleFlush()
                        return
                    }
                    if result < 0, code == EINTR { continue }
                    readEnded(result == 0 ? nil : String(cString: strerror(code)), tls: false)
                    return
                }
                count = result
            }
            receivedApplicationData = true
            lastProgressAt = HTTP2Clock.now
            if phase == .closing, nghttp2_session_want_read(session) == 0 { continue }
            let consumed = nghttp2_session_mem_recv(session, buffer.pointer.assumingMemoryBound(to: UInt8.self), count)
            if consumed < 0 {
                fail(
                    RichPushError(
                        code: .connectionFailed,
                        message: "\(endpoint.description) broke the HTTP/2 protocol: \(String(cString: nghttp2_strerror(Int32(consumed))))"))
                return
            }
        }
    }

    /// The server closed the connection (`detail` nil: an orderly end of the stream) or reading
    /// failed (`detail`; `tls`: a TLS error or alert, not a socket error).
    ///
    /// A connection on which the server never sent a byte of HTTP/2 — not even its SETTINGS,
    /// which RFC 9113 §3.4 makes the first thing a server sends — was refused below HTTP/2 (its
    /// TLS refused our certificate, or it closed at once): none of its requests reached the
    /// server's HTTP/2 layer, so they go back to the pool unsent (`failSetup`). After the first
    /// byte, a request written and not answered is `unknown` (`fail`).
    func readEnded(_ detail: String?, tls: Bool) {
        if phase == .closing {
            teardown()
            pool.connectionClosed(self, error: nil)
            return
        }
        if !receivedApplicationData {
            let text = detail ?? "closed the connection"
            let certificate = tls && (text.contains("certificate") || text.contains("unknown ca"))
            let hint =
                !certificate
                ? "; check that \(endpoint.description) speaks HTTP/2\(settings.hasClientCertificate ? " and accepts \(settings.names.certificate)" : "")"
                : settings.hasClientCertificate
                    ? "; check \(settings.names.certificate) and its key"
                    : "; it asks for a client certificate (certificate-based auth): pass \(settings.names.certificate), or use token auth"
            failSetup(
                RichPushError(
                    code: certificate ? .tlsConfiguration : .connectionFailed,
                    message: "\(endpoint.description) refused the connection before HTTP/2 began (\(text))\(hint)"))
            return
        }
        if let detail {
            fail(RichPushError(code: .connectionFailed, message: "reading from \(endpoint.description) failed: \(detail)"))
        } else {
            let why =
                goawayLastStreamID.map { "the server closed the connection after its GOAWAY (last-stream-id \($0))" } ?? "the server closed the connection"
            fail(RichPushError(code: .connectionFailed, message: why))
        }
    }

    /// Writes nghttp2's frames until the socket is full (then waits for EPOLLOUT) or nothing is left.
    func flush() {
        guard let session, phase == .open || phase == .draining || phase == .closing else { return }
        while true {
            if outboundOffset == outbound.count {
                outbound.removeAll(keepingCapacity: true)
                outboundOffset = 0
                while outbound.count < Self.writeChunk {
                    var data: UnsafePointer<UInt8>?
                    let produced = nghttp2_session_mem_send(session, &data)
                    if produced < 0 {
                        fail(RichPushError(code: .transport, message: "nghttp2 could not write frames: \(String(cString: nghttp2_strerror(Int32(produced))))"))
                        return
                    }
                    guard produced > 0, let data else { break }
                    outbound.append(contentsOf: UnsafeBufferPointer(start: data, count: produced))
                }
                if outbound.isEmpty { break }
            }
            let written: Int = outbound.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return 0 }
                let start = base + outboundOffset
                let length = raw.count - outboundOffset
                if let ssl {
                    ERR_clear_error()
                    let result = SSL_write(ssl, start, Int32(min(length, Int(Int32.max))))
                    if result > 0 { return Int(result) }
                    let error = SSL_get_error(ssl, result)
                    return error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ ? 0 : -1
                }
                let result = send(fd, start, length, Int32(MSG_NOSIGNAL))
                if result >= 0 { return result }
                let code = richpush_errno()
                return code == EAGAIN || code == EWOULDBLOCK || code == EINTR ? 0 : -1
            }
            if written < 0 {
                // The server closed or reset the connection: first read what it sent before
                // (answers in the kernel's buffer are still answers), then end it.
                readAvailable()
                if phase == .closed { return }
                if phase == .closing {
                    teardown()
                    pool.connectionClosed(self, error: nil)
                } else {
                    fail(RichPushError(code: .connectionFailed, message: "writing to \(endpoint.description) failed: the connection was lost"))
                }
                return
            }
            if written == 0 {
                watch(UInt32(EPOLLIN.rawValue | EPOLLOUT.rawValue))
                return
            }
            outboundOffset += written
        }
        watch(UInt32(EPOLLIN.rawValue))
        if phase == .closing, nghttp2_session_want_write(session) == 0, !sentShutdown {
            // Our GOAWAY is out: end TLS and the write side, then read until the server closes.
            sentShutdown = true
            if let ssl { _ = SSL_shutdown(ssl) }
            shutdown(fd, Int32(SHUT_WR))
        }
    }
}

/// The loop thread's one read buffer (64 KiB): every connection reads into it in turn.
final class HTTP2ReadBuffer: @unchecked Sendable {
    static let shared = HTTP2ReadBuffer()
    let capacity = 65536
    let pointer: UnsafeMutableRawPointer

    private init() { pointer = .allocate(byteCount: capacity, alignment: 16) }
}
#endif
