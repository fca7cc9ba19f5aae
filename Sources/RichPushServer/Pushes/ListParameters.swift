import Foundation

/// The query parameters of the push lists (`GET /v1/pushes` and the dashboard), read without
/// trapping on any input: `limit`, `prefix` (or `q`), `from` and `to` (a UTC day `2026-11-30` or
/// an RFC 3339 time; `to` as a day includes that day), `after` / `before` (cursors of a previous
/// page).
struct ListParameters {
    /// The store query.
    var query: PushQuery
    /// The parameters as given, for building links (empty ones dropped).
    var prefix: String?
    var from: String?
    var to: String?

    /// Reads the parameters.
    ///
    /// - Parameters:
    ///   - value: a query parameter by name.
    ///   - defaultLimit: the page size when `limit` is absent.
    /// - Returns: the parameters.
    /// - Throws: `HTTPResponseError` 400 `invalid_query` saying which parameter and why.
    static func parse(_ value: (String) -> String?, defaultLimit: Int) throws -> ListParameters {
        for name in ["limit", "prefix", "q", "from", "to", "after", "before"] {
            // A decoded `%00` (or another control character) would cut or bend the value further in.
            if let raw = value(name), raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw HTTPResponseError(
                    code: "invalid_query", field: name, message: "\(name) contains a control character (such as %00); remove it from the value")
            }
        }
        func given(_ name: String) -> String? {
            value(name).flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        }
        var limit = defaultLimit
        if let raw = given("limit") {
            guard raw.utf8.count <= 4, raw.utf8.allSatisfy({ (48...57).contains($0) }), let n = Int(raw), (1...PushQuery.maximumLimit).contains(n) else {
                throw HTTPResponseError(code: "invalid_query", message: "limit must be an integer from 1 to \(PushQuery.maximumLimit)")
            }
            limit = n
        }
        let prefix = given("prefix") ?? given("q")
        if let prefix, prefix.utf8.count > 128 {
            throw HTTPResponseError(code: "invalid_query", message: "the push id prefix is at most 128 bytes")
        }
        let from = given("from")
        let to = given("to")
        let fromMs = try from.map { try time($0, parameter: "from", endOfDay: false) }
        let toMs = try to.map { try time($0, parameter: "to", endOfDay: true) }
        // `from` equal to `to` is an empty range (no push), not a mistake.
        if let fromMs, let toMs, fromMs > toMs {
            throw HTTPResponseError(code: "invalid_query", message: "to must not be before from")
        }
        var position = PushQuery.Position.first
        for (name, make) in [("after", PushQuery.Position.after), ("before", PushQuery.Position.before)] {
            guard let raw = given(name) else { continue }
            guard let cursor = PushCursor(token: raw), (cursor.startedMs == nil) == (prefix != nil) else {
                throw HTTPResponseError(
                    code: "invalid_query", message: "\(name) is not a cursor of this list; use the next/previous value from a page with the same prefix")
            }
            position = make(cursor)
        }
        let query = PushQuery(limit: limit, prefix: prefix, startedFromMs: fromMs, startedBeforeMs: toMs, position: position)
        return ListParameters(query: query, prefix: prefix, from: from, to: to)
    }

    /// `2026-11-30` (UTC midnight; with `endOfDay`, the next midnight) or an RFC 3339 time, as ms
    /// since 1970, between 1970 and 9999.
    static func time(_ text: String, parameter: String, endOfDay: Bool) throws -> Int {
        let invalid = HTTPResponseError(code: "invalid_query", message: "\(parameter) must be a day like 2026-11-30 (UTC) or a time like 2026-11-30T12:00:00Z")
        guard text.utf8.count <= 40 else { throw invalid }
        if text.utf8.count == 10 {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                parts.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }),
                let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1970...9999).contains(y), (1...12).contains(m), (1...31).contains(d)
            else { throw invalid }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            guard let date = calendar.date(from: DateComponents(year: y, month: m, day: d)),
                calendar.component(.day, from: date) == d
            else { throw invalid }
            let ms = Int((date.timeIntervalSince1970 * 1000).rounded())
            return endOfDay ? ms + 86_400_000 : ms
        }
        // RFC 3339's offset is at most ±23:59; ISO8601DateFormatter also takes +99:00.
        if let sign = text.lastIndex(where: { $0 == "+" || $0 == "-" }), text[..<sign].contains("T") {
            let digits = text[text.index(after: sign)...].filter { $0 != ":" }
            guard digits.count == 4, digits.allSatisfy(\.isASCII), let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)),
                hours <= 23, minutes <= 59
            else {
                throw HTTPResponseError(
                    code: "invalid_query", field: parameter, message: "\(parameter) has a UTC offset past ±23:59; use Z or an offset like +05:30")
            }
        }
        guard let ms = RFC3339Time.milliseconds(text), ms >= 0, ms <= 253_402_300_799_999 else { throw invalid }
        return ms
    }
}
