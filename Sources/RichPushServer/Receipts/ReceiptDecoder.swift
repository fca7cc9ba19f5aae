import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Turns a `POST /v1/receipts` body into a `RichPushReceipt`, checking every field against
/// `RichPushReceipt.Limits`.
///
/// Accepts `application/x-www-form-urlencoded` (article 000 sends just `push_id=2018001`) and
/// `application/json` (an object with the same field names). A body without a content type (or
/// `text/plain`) is read as JSON when it starts with `{`, else as a form. Any other type
/// (multipart, XML…), and a JSON-looking body sent as a form (`curl -d '{…}'`), is refused
/// with `415 unsupported_media_type` naming the accepted types. Unknown fields are ignored, so newer
/// clients can add some; `outcome` and `reason` may be codes this version does not know (kept,
/// not dropped, up to the bounds of `CodeFolding`, past which the store counts them as `other`)
/// but must look like codes (`a-z`, `0-9`, `_`); `event` must be `delivered` or
/// `opened`, since a misspelt event would silently vanish from every figure. `push_id` and
/// `receipt_id` must be printable (`IdentifierRule`: no control, bidi-control, invisible or
/// line-separator characters), so the dashboard shows every id as it is; in JSON they may also be
/// integers, kept as their exact text (`{"push_id": 2018001}` is `push_id=2018001`). A field given
/// twice is refused (`400 duplicate_field`) in a form and in JSON alike.
public enum ReceiptDecoder {
    /// Decodes and validates a body.
    ///
    /// - Parameters:
    ///   - body: the request body (at most 8 KB; the HTTP layer answers 413 above that).
    ///   - contentType: the `Content-Type` header, if any.
    /// - Returns: the receipt.
    /// - Throws: `HTTPResponseError` naming the field and why.
    public static func decode(body: Data, contentType: String?) throws -> RichPushReceipt {
        // What devices (and article 000) send, compared without building a lowered copy.
        let mime = contentType == "application/x-www-form-urlencoded" ? contentType : contentType.map { Self.mediaType($0) }
        let first = body.first(where: { !" \t\r\n".utf8.contains($0) })
        let looksLikeJSON = first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        let isJSON: Bool
        switch mime {
        case "application/x-www-form-urlencoded":
            // `curl -d '{"push_id":…}'` sends JSON with this header: say so, rather than
            // reading one form field named `{"push_id":…}` and answering "push_id is required".
            if looksLikeJSON { throw unsupported(mime, detail: "the body looks like JSON but was sent as a form") }
            isJSON = false
        case "application/json":
            isJSON = true
        case let other? where other.hasSuffix("+json"):
            isJSON = true
        case nil, "", "text/plain":
            // No type (or text/plain, as navigator.sendBeacon sends): judge by the body.
            if first == UInt8(ascii: "<") { throw unsupported(mime, detail: "the body looks like XML or HTML") }
            isJSON = looksLikeJSON
        case let other?:
            throw unsupported(other, detail: nil)
        }
        let fields = isJSON ? try jsonFields(body) : try formFields(body)
        return try receipt(from: fields)
    }

    /// The `415` for a body this decoder does not read, naming what came and what is accepted.
    private static func unsupported(_ mime: String?, detail: String?) -> HTTPResponseError {
        var sent = mime.map { $0.isEmpty ? "a body without Content-Type" : "Content-Type \($0.prefix(80))" } ?? "a body without Content-Type"
        if let detail { sent += " (\(detail))" }
        return HTTPResponseError(
            status: 415, code: "unsupported_media_type", field: "Content-Type",
            message:
                "\(sent) is not accepted; send application/x-www-form-urlencoded (push_id=2018001&event=delivered) or application/json ({\"push_id\":\"2018001\"})"
        )
    }

    /// `Application/JSON; charset=utf-8` → `application/json` (ASCII only, no Foundation).
    static func mediaType(_ header: String) -> String {
        var out = ""
        for scalar in header.unicodeScalars {
            if scalar == ";" { break }
            if scalar == " " || scalar == "\t" { continue }
            out.unicodeScalars.append(("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar)
        }
        return out
    }

    /// A field's raw value: a string from a form, or a JSON value.
    enum RawField {
        case text(String)
        case json(RichPushJSONValue)
    }

    static func formFields(_ body: Data) throws -> [String: RawField] {
        // Byte-level parsing (no Foundation string bridging): this is the hot path under load.
        var fields: [String: RawField] = [:]
        try body.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: "&") { end += 1 }
                if end > start {
                    var eq = start
                    while eq < end && bytes[eq] != UInt8(ascii: "=") { eq += 1 }
                    guard let name = decodeFormComponent(bytes[start..<eq]) else {
                        throw HTTPResponseError(code: "invalid_body", field: "body", message: "a form field name is not valid percent-encoded UTF-8")
                    }
                    let valueBytes = eq < end ? bytes[(eq + 1)..<end] : bytes[end..<end]
                    guard let value = decodeFormComponent(valueBytes) else {
                        throw HTTPResponseError(code: "invalid_field", field: name, message: "\(name) is not valid percent-encoded UTF-8")
                    }
                    if fields[name] != nil {
                        throw HTTPResponseError(code: "duplicate_field", field: name, message: "\(name) was given more than once; send it once")
                    }
                    fields[name] = .text(value)
                }
                start = end + 1
            }
        }
        return fields
    }

    /// Decodes `+` and `%XX` in a form component; `nil` for a bad escape or invalid UTF-8.
    private static func decodeFormComponent(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
        var needsDecoding = false
        for b in bytes where b == UInt8(ascii: "%") || b == UInt8(ascii: "+") || b >= 0x80 {
            needsDecoding = true
            break
        }
        if !needsDecoding { return String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self) }  // plain ASCII
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex, let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) else { return nil }
                out.append(hi << 4 | lo)
                i += 2
            } else {
                out.append(b)
            }
            i += 1
        }
        let text = String(decoding: out, as: UTF8.self)
        return text.utf8.elementsEqual(out) ? text : nil  // invalid UTF-8 would have been repaired
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    static func jsonFields(_ body: Data) throws -> [String: RawField] {
        let value: RichPushJSONValue
        do {
            value = try RichPushJSONValue.parseRefusingDuplicateKeys(body)
        } catch let duplicate as JSONDuplicateKeyError {
            // As the form path: `{"push_id":"x","push_id":"y"}` must not count under "y".
            let name = String(duplicate.key.prefix(64))
            throw HTTPResponseError(code: "duplicate_field", field: name, message: "\(name) was given more than once; send it once")
        } catch {
            if let tooDeep = JSONNesting.tooDeepMessage(body) {
                throw HTTPResponseError(code: "invalid_body", field: "body", message: tooDeep + "; a receipt is one flat object like {\"push_id\":\"2018001\"}")
            }
            throw HTTPResponseError(code: "invalid_body", field: "body", message: "the body is not valid JSON; send a JSON object or a form")
        }
        guard let object = value.objectValue else {
            throw HTTPResponseError(code: "invalid_body", field: "body", message: "the JSON body must be an object like {\"push_id\":\"2018001\"}")
        }
        return object.mapValues { .json($0) }
    }

    static func receipt(from fields: [String: RawField]) throws -> RichPushReceipt {
        guard let pushID = try identifier("push_id", fields, required: true) else {
            throw HTTPResponseError(code: "missing_field", field: "push_id", message: "push_id is required (e.g. push_id=2018001)")
        }
        var event = RichPushReceipt.Event.delivered
        if let raw = try string("event", fields, maxBytes: RichPushReceipt.Limits.codeBytes) {
            event = RichPushReceipt.Event(rawValue: raw)
            guard RichPushReceipt.Event.known.contains(event) else {
                throw HTTPResponseError(
                    code: "invalid_field", field: "event",
                    message: "event must be one of \(RichPushReceipt.Event.known.map(\.rawValue).joined(separator: ", ")); got '\(raw.prefix(64))'"
                )
            }
        }
        let receiptID = try identifier("receipt_id", fields, required: false)
        let outcome = try code("outcome", fields).map(RichPushOutcome.init(rawValue:))
        let reason = try code("reason", fields).map(RichPushReasonCode.init(rawValue:))
        let elapsed = try integer("elapsed_ms", fields, max: RichPushReceipt.Limits.maximumElapsedMs, unit: "ms")
        let mediaBytes = try integer("media_bytes", fields, max: RichPushReceipt.Limits.maximumMediaBytes, unit: "bytes")
        let mediaType = try string("media_type", fields, maxBytes: RichPushReceipt.Limits.mediaTypeBytes)
        var receipt = RichPushReceipt(
            pushID: pushID, event: event, receiptID: receiptID, outcome: outcome, reason: reason, elapsedMs: elapsed,
            mediaBytes: mediaBytes, mediaType: mediaType
        )
        (receipt.deviceID, receipt.deviceMAC) = try deviceReference(fields)
        return receipt
    }

    /// `device_id` and `device_mac` (per-device receipts): both or neither; `dev_` + 32 lowercase
    /// hex digits, and 64 hex digits.
    static func deviceReference(_ fields: [String: RawField]) throws -> (String?, String?) {
        let id = try string("device_id", fields, maxBytes: 36)
        let mac = try string("device_mac", fields, maxBytes: 64)
        guard id != nil || mac != nil else { return (nil, nil) }
        guard let id, let mac else {
            throw HTTPResponseError(
                code: "invalid_field", field: id == nil ? "device_id" : "device_mac",
                message: "device_id and device_mac go together (per-device receipts: the device's id and the HMAC of its secret); send both or neither")
        }
        guard DeviceCredentialRule.isDeviceID(id) else {
            throw HTTPResponseError(
                code: "invalid_field", field: "device_id", message: "device_id is dev_ and 32 lowercase hex digits, as POST /v1/devices answered it")
        }
        guard DeviceCredentialRule.isHex(mac, digits: 64) else {
            throw HTTPResponseError(
                code: "invalid_field", field: "device_mac", message: "device_mac is 64 hex digits: HMAC-SHA256 of the receipt under the device secret")
        }
        return (id, mac.lowercased())
    }

    /// A string field (empty = absent), bounded in UTF-8 bytes, without control characters;
    /// with `printable` (the ids), held to `IdentifierRule` (no bidi controls, invisible or
    /// line-separator characters) and also taken as a JSON integer, kept as its exact text
    /// (`{"push_id": 2018001}` is push `2018001`, as `push_id=2018001` in a form; `1.0`, `1e3`
    /// are refused: their text is not the id a payload would carry).
    static func string(_ name: String, _ fields: [String: RawField], maxBytes: Int, printable: Bool = false) throws -> String? {
        guard let raw = fields[name] else { return nil }
        let value: String
        switch raw {
        case .text(let s): value = s
        case .json(.null): return nil
        case .json(.string(let s)): value = s.value
        case .json(.number(let n)) where printable && n.isIntegerLiteral: value = n.text
        case .json:
            let expected = printable ? "a string (or an integer, taken as its digits)" : "a string"
            throw HTTPResponseError(code: "invalid_field", field: name, message: "\(name) must be \(expected)")
        }
        if value.isEmpty { return nil }
        if value.utf8.count > maxBytes {
            throw HTTPResponseError(
                code: "too_long", field: name, message: "\(name) is \(value.utf8.count) bytes; at most \(maxBytes) bytes"
            )
        }
        if printable, let bad = IdentifierRule.firstViolation(in: value) {
            throw HTTPResponseError(
                code: "not_printable", field: name,
                message: "\(name) holds \(IdentifierRule.describe(bad.scalar)), \(bad.kind), at character \(bad.position); \(IdentifierRule.summary)"
            )
        }
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw HTTPResponseError(code: "invalid_field", field: name, message: "\(name) contains control characters")
        }
        return value
    }

    static func identifier(_ name: String, _ fields: [String: RawField], required: Bool) throws -> String? {
        let value = try string(name, fields, maxBytes: RichPushReceipt.Limits.identifierBytes, printable: true)
        if value == nil, required, fields[name] != nil {
            throw HTTPResponseError(code: "missing_field", field: name, message: "\(name) is empty; send a non-empty id")
        }
        return value
    }

    static func code(_ name: String, _ fields: [String: RawField]) throws -> String? {
        guard let value = try string(name, fields, maxBytes: RichPushReceipt.Limits.codeBytes) else { return nil }
        let allowed = value.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
        guard allowed else {
            throw HTTPResponseError(
                code: "invalid_field", field: name, message: "\(name) must be a code of a-z, 0-9 and _ (e.g. media_attached, timeout); got '\(value)'"
            )
        }
        return value
    }

    static func integer(_ name: String, _ fields: [String: RawField], max: Int, unit: String) throws -> Int? {
        guard let raw = fields[name] else { return nil }
        let parsed: Int?
        // A whole number, however large or negative, is out of range, not malformed (as in JSON).
        let whole: Bool
        switch raw {
        case .text(let s):
            if s.isEmpty { return nil }
            let digits = s.utf8.first == UInt8(ascii: "-") ? s.utf8.dropFirst() : s.utf8[...]
            whole = !digits.isEmpty && digits.allSatisfy { (48...57).contains($0) }
            parsed = whole ? (digits.count <= 12 ? Int(s) : .max) : nil
        case .json(.null): return nil
        case .json(let v):
            parsed = v.intValue
            whole = parsed != nil
        }
        guard let value = parsed, value >= 0, value <= max else {
            let shown: String
            switch raw {
            case .text(let s): shown = "'\(s.prefix(32))'"
            case .json(let v): shown = String(decoding: v.jsonData().prefix(32), as: UTF8.self)
            }
            throw HTTPResponseError(
                code: whole ? "out_of_range" : "invalid_field", field: name,
                message: "\(name) must be a whole number of \(unit) from 0 to \(max); got \(shown)"
            )
        }
        return value
    }
}
