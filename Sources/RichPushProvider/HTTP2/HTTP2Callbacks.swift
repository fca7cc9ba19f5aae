#if canImport(CNGHTTP2) && os(Linux)
import CNGHTTP2
import Foundation

/// nghttp2's callbacks into an `HTTP2Connection` (its session's user data) and its streams (each
/// stream's user data): answer headers and body, SETTINGS, GOAWAY, PING acknowledgements, the
/// end of each stream, and which request HEADERS were written. One set for the process.
///
/// `@unchecked Sendable`: the callbacks object is made once and only read by nghttp2 after that.
final class HTTP2Callbacks: @unchecked Sendable {
    static let shared = HTTP2Callbacks()

    let callbacks: OpaquePointer?

    private init() {
        var made: OpaquePointer?
        nghttp2_session_callbacks_new(&made)
        callbacks = made
        guard let made else { return }
        nghttp2_session_callbacks_set_on_header_callback(made) { session, frame, name, nameLength, value, valueLength, _, _ in
            guard let frame, let name, let value, nameLength > 0, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                let stream = HTTP2Callbacks.stream(session, frame.pointee.hd.stream_id)
            else { return 0 }
            if name[0] == UInt8(ascii: ":") {
                // `:status`, three digits (nghttp2 has checked the field); other pseudo-fields are not answers'.
                if nameLength == 7, valueLength == 3 {
                    stream.status = Int(value[0] &- 48) * 100 + Int(value[1] &- 48) * 10 + Int(value[2] &- 48)
                }
                return 0
            }
            let key = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
            stream.headers[key] = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(made) { session, _, streamID, data, length, _ in
            guard let data, let stream = HTTP2Callbacks.stream(session, streamID) else { return 0 }
            stream.appendBody(UnsafeRawBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(made) { session, frame, user in
            guard let frame, let user else { return 0 }
            let connection = Unmanaged<HTTP2Connection>.fromOpaque(user).takeUnretainedValue()
            switch UInt32(frame.pointee.hd.type) {
            case NGHTTP2_SETTINGS.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
                connection.settingsChanged()
            case NGHTTP2_GOAWAY.rawValue:
                let goaway = frame.pointee.goaway
                let debug =
                    goaway.opaque_data.map {
                        // Control characters (a forged line in a log) become spaces.
                        String(
                            decoding: UnsafeBufferPointer(start: $0, count: min(goaway.opaque_data_len, 512)).map { $0 < 0x20 || $0 == 0x7F ? 0x20 : $0 },
                            as: UTF8.self)
                    } ?? ""
                connection.goawayReceived(lastStreamID: goaway.last_stream_id, errorCode: goaway.error_code, debug: debug)
            case NGHTTP2_PING.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
                connection.pingAcknowledged()
            case NGHTTP2_HEADERS.rawValue:
                // A 1xx informational answer is not the answer: the final one follows.
                if let stream = HTTP2Callbacks.stream(session, frame.pointee.hd.stream_id), let status = stream.status, status < 200 {
                    stream.status = nil
                }
            default:
                break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(made) { session, frame, _ in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                let stream = HTTP2Callbacks.stream(session, frame.pointee.hd.stream_id)
            else { return 0 }
            stream.written = true
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(made) { _, streamID, errorCode, user in
            guard let user else { return 0 }
            Unmanaged<HTTP2Connection>.fromOpaque(user).takeUnretainedValue().streamClosed(streamID, errorCode: errorCode)
            return 0
        }
    }

    /// The stream a frame belongs to: nghttp2's user data of the stream, set at submit (the
    /// connection's `streams` holds the reference until the stream closes).
    private static func stream(_ session: OpaquePointer?, _ id: Int32) -> HTTP2Stream? {
        guard let session, id > 0, let pointer = nghttp2_session_get_stream_user_data(session, id) else { return nil }
        return Unmanaged<HTTP2Stream>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// nghttp2's body source: copies the request body out as DATA frames, then ends the stream.
    static let readBody: nghttp2_data_source_read_callback = { _, _, buffer, length, flags, source, _ in
        guard let source, let pointer = source.pointee.ptr, let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        let stream = Unmanaged<HTTP2Stream>.fromOpaque(pointer).takeUnretainedValue()
        let body = stream.request.body
        let count = min(length, body.count - stream.bodyOffset)
        if count > 0 {
            body.withUnsafeBytes { raw in
                if let base = raw.baseAddress { memcpy(buffer, base + stream.bodyOffset, count) }
            }
            stream.bodyOffset += count
        }
        if stream.bodyOffset >= body.count { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
        return count
    }
}
#endif
