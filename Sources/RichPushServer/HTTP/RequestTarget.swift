import Foundation

/// A request-target (`/v1/pushes/a%2Fb?limit=10`) read strictly, once, for every request: the
/// path decoded and checked, the path routes are matched on, the query's arguments.
///
/// - A `%` not followed by two hex digits, a decoded byte sequence that is not UTF-8, or a
///   control character (U+0000–U+001F, U+007F) in the decoded path is a problem (`400
///   invalid_path`): libmicrohttpd decodes the path in place, so `%00` used to cut
///   `DELETE /v1/devices/abc%00def` down to `abc`.
/// - Routes are matched on the path with only unreserved characters decoded (RFC 3986 §6.2.2.2),
///   so an encoded `/` (`%2F`) stays inside its segment: a push id `a/sends` is read at
///   `GET /v1/pushes/a%2Fsends`, not taken for `/v1/pushes/a/sends`. A route's parameter is then
///   decoded.
/// - The query is `name=value` pairs split on `&`, each percent-decoded with `+` as a space
///   (HTML forms, as libmicrohttpd decodes them); a name given twice is a problem (`400
///   invalid_query`: which of two `limit`s counts is not something to guess).
struct RequestTarget: Equatable {
    /// The decoded path (for messages, and for endpoints that read it whole).
    var path: String
    /// The path routes match: percent-encoded, unreserved characters decoded.
    var routingPath: String
    /// The query's arguments, decoded.
    var query: [String: String]
    /// What is wrong with the target, when something is: the error code and the message.
    var problem: (code: String, message: String)?

    static func == (a: RequestTarget, b: RequestTarget) -> Bool {
        a.path == b.path && a.routingPath == b.routingPath && a.query == b.query && a.problem?.code == b.problem?.code
            && a.problem?.message == b.problem?.message
    }

    /// Reads a request-target.
    ///
    /// - Parameter raw: the target as sent (origin form: the path, then `?` and the query).
    init(_ raw: String) {
        let bytes = Array(raw.utf8)
        let question = bytes.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = Array(bytes[..<(question ?? bytes.count)])
        let rawQuery = question.map { Array(bytes[($0 + 1)...]) } ?? []
        path = ""
        routingPath = ""
        query = [:]
        problem = nil
        // The path.
        switch Self.decode(rawPath, plusIsSpace: false) {
        case .failure(let failure):
            problem = ("invalid_path", "the path \(failure.why); percent-encode it as UTF-8 without control characters")
            path = String(decoding: rawPath, as: UTF8.self)
            routingPath = path
        case .success(let decoded):
            path = decoded
            routingPath = Self.normalize(rawPath)
            if let control = decoded.unicodeScalars.first(where: Self.isControl) {
                problem = (
                    "invalid_path",
                    "the path holds a control character (U+\(String(format: "%04X", control.value))); a path never does: percent-encode only what it names"
                )
            }
        }
        // The query.
        guard !rawQuery.isEmpty else { return }
        for pair in rawQuery.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let rawName = Array(pair[..<(equals ?? pair.endIndex)])
            let rawValue = equals.map { Array(pair[($0 + 1)...]) } ?? []
            guard case .success(let name) = Self.decode(rawName, plusIsSpace: true), case .success(let value) = Self.decode(rawValue, plusIsSpace: true)
            else {
                if problem == nil {
                    problem = (
                        "invalid_query", "the query has an argument that is not percent-encoded UTF-8 (a % without two hex digits, or bytes that are not UTF-8)"
                    )
                }
                continue
            }
            guard query[name] == nil else {
                if problem == nil {
                    let shown = String(name.unicodeScalars.filter { !Self.isControl($0) }.prefix(64))
                    problem = ("invalid_query", "the query gives '\(shown)' more than once; give each argument once")
                }
                continue
            }
            query[name] = value
        }
    }

    /// A route's parameter, taken from `routingPath`, decoded.
    ///
    /// - Parameter raw: the parameter as matched on `routingPath`.
    /// - Returns: it decoded (the routing path was decoded once already without a problem).
    static func parameter(_ raw: String) -> String {
        (try? decode(Array(raw.utf8), plusIsSpace: false).get()) ?? raw
    }

    /// Why decoding failed.
    struct Failure: Error {
        let why: String
    }

    /// `bytes` percent-decoded as UTF-8.
    static func decode(_ bytes: [UInt8], plusIsSpace: Bool) -> Result<String, Failure> {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, let high = hex(bytes[i + 1]), let low = hex(bytes[i + 2]) else {
                    return .failure(Failure(why: "has a % that is not followed by two hex digits"))
                }
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(plusIsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i += 1
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            return .failure(Failure(why: "is not UTF-8 once decoded"))
        }
        return .success(text)
    }

    /// The raw path with `%XX` of unreserved characters decoded and hex digits upper-cased, the
    /// rest as sent (RFC 3986 §6.2.2).
    static func normalize(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let high = hex(bytes[i + 1]), let low = hex(bytes[i + 2]) {
                let value = high << 4 | low
                if isUnreserved(value) {
                    out.append(value)
                } else {
                    out += Array(String(format: "%%%02X", value).utf8)
                }
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: return b - 48
        case 65...70: return b - 55
        case 97...102: return b - 87
        default: return nil
        }
    }

    static func isUnreserved(_ b: UInt8) -> Bool {
        (65...90).contains(b) || (97...122).contains(b) || (48...57).contains(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
            || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
    }

    static func isControl(_ s: Unicode.Scalar) -> Bool { s.value < 0x20 || s.value == 0x7F }
}
