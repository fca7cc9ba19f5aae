import Foundation
import RichPushCore

extension ActivityShape {
    /// How far from now a date may decode before it is called a mistake: 15 years, in seconds.
    /// (A 1970-based value read from 2001 lands 31 years ahead; a duration lands near 2001.)
    public static let plausibleDateSpan: TimeInterval = 15 * 365.25 * 86_400

    /// Checks a value against a kind as the app's default `JSONDecoder` would decode it.
    ///
    /// - Parameters:
    ///   - value: the value (`aps.content-state`, `aps.attributes`), or `nil` when absent.
    ///   - kind: the declared kind.
    ///   - path: the value's key path, for the findings (`aps.content-state`).
    ///   - now: the current time, to tell a 1970-based date from a 2001-based one.
    /// - Returns: the findings (errors: the decoder fails and iOS drops the push; warnings:
    ///   ignored keys, dates long past).
    public static func check(_ value: RichPushJSONValue?, against kind: Kind, at path: String, now: Date) -> [RichPushLintFinding] {
        var findings: [RichPushLintFinding] = []
        walk(value, kind, path, now, &findings)
        return findings
    }

    private static let dropped = "the app's decoder fails, so iOS drops the push (APNs still answers 200)"

    private static func walk(_ value: RichPushJSONValue?, _ kind: Kind, _ path: String, _ now: Date, _ findings: inout [RichPushLintFinding]) {
        if case .optional(let wrapped) = kind {
            guard let value, value != .null else { return }
            walk(value, wrapped, path, now, &findings)
            return
        }
        guard let value else {
            findings.append(
                RichPushLintFinding(.error, .shapeMissingKey, at: path, "missing; the app declares it as \(describe(kind)) (not optional): \(dropped)"))
            return
        }
        if value == .null, kind != .json {
            findings.append(
                RichPushLintFinding(.error, .shapeWrongType, at: path, "null, but the app declares \(describe(kind)) (not optional): \(dropped)"))
            return
        }
        func wrong(_ expected: String) {
            findings.append(
                RichPushLintFinding(.error, .shapeWrongType, at: path, "\(valueDescription(value)), but the app declares \(expected): \(dropped)"))
        }
        switch kind {
        case .json, .optional:
            return
        case .string:
            if value.stringValue == nil { wrong("a String") }
        case .int:
            guard case .number(let n) = value else { return wrong("an integer") }
            if n.intValue == nil { wrong("an integer (a whole number within 64 bits)") }
        case .double:
            guard case .number(let n) = value else { return wrong("a number") }
            if !n.doubleValue.isFinite { wrong("a finite number") }
        case .bool:
            if value.boolValue == nil { wrong("a Bool (true or false; not 1, 0 or \"true\")") }
        case .url:
            guard let s = value.stringValue else { return wrong("a URL string") }
            if URL(string: s) == nil { wrong("a URL (this string is not one)") }
        case .uuid:
            guard let s = value.stringValue else { return wrong("a UUID string") }
            if UUID(uuidString: s) == nil { wrong("a UUID (8-4-4-4-12 hex digits)") }
        case .data:
            guard let s = value.stringValue else { return wrong("Data (base64 text)") }
            if Data(base64Encoded: s) == nil { wrong("Data as base64 text (this string is not base64)") }
        case .date:
            checkDate(value, path, now, &findings)
        case .enumeration(let cases):
            if !cases.contains(value) {
                let listed = cases.map { $0.compactText() }.joined(separator: ", ")
                findings.append(
                    RichPushLintFinding(.error, .shapeEnumValue, at: path, "\(value.compactText()) is not one of the app's cases (\(listed)): \(dropped)"))
            }
        case .array(let element):
            guard let elements = value.arrayValue else { return wrong("an array") }
            for (i, e) in elements.enumerated() { walk(e, element, "\(path)[\(i)]", now, &findings) }
        case .dictionary(let element):
            guard let members = value.objectValue else { return wrong("a dictionary (a JSON object)") }
            for key in members.keys.sorted() { walk(members[key], element, path + "." + key, now, &findings) }
        case .object(let properties):
            guard let members = value.objectValue else { return wrong("a struct (a JSON object)") }
            for key in properties.keys.sorted() { walk(members[key], properties[key] ?? .json, path + "." + key, now, &findings) }
            for key in members.keys.sorted() where properties[key] == nil {
                findings.append(
                    RichPushLintFinding(
                        .warning, .shapeUnknownKey, at: path + "." + key,
                        "not a property of the app's type (it declares \(properties.keys.sorted().joined(separator: ", "))): its decoder ignores it — a misspelt key?"
                    ))
            }
        }
    }

    /// A `Date` property: a number of seconds since 2001-01-01 (the default `.deferredToDate`).
    private static func checkDate(_ value: RichPushJSONValue, _ path: String, _ now: Date, _ findings: inout [RichPushLintFinding]) {
        if let text = value.stringValue {
            findings.append(
                RichPushLintFinding(
                    .error, .shapeDateString, at: path,
                    "the date is the string \"\(text)\", but the app's default JSONDecoder reads a Date as a number of seconds since 2001-01-01 (Apple: no custom date strategies): \(dropped); send \(suggestion(forText: text) ?? "the seconds since 2001-01-01")"
                ))
            return
        }
        guard let seconds = value.doubleValue, seconds.isFinite else {
            findings.append(
                RichPushLintFinding(
                    .error, .shapeWrongType, at: path,
                    "\(valueDescription(value)), but the app declares a Date (a number of seconds since 2001-01-01): \(dropped)"))
            return
        }
        let decoded = Date(timeIntervalSinceReferenceDate: seconds)
        if decoded.timeIntervalSince(now) > plausibleDateSpan {
            let asUnix = Date(timeIntervalSince1970: seconds)
            let asMilliseconds = Date(timeIntervalSince1970: seconds / 1000)
            let years = Int((decoded.timeIntervalSince(now) / (365.25 * 86_400)).rounded())
            var message =
                "\(jsonNumber(seconds)) decodes in the app as \(iso(decoded)), \(years) years ahead: the app's JSONDecoder counts seconds from 2001-01-01, "
            if abs(asUnix.timeIntervalSince(now)) <= plausibleDateSpan {
                message +=
                    "this looks like seconds since 1970 (\(iso(asUnix))); send \(jsonNumber(seconds - Date.timeIntervalBetween1970AndReferenceDate)) (subtract 978307200)"
            } else if abs(asMilliseconds.timeIntervalSince(now)) <= plausibleDateSpan {
                message += "this looks like milliseconds since 1970 (\(iso(asMilliseconds))); send \(jsonNumber(asMilliseconds.timeIntervalSinceReferenceDate))"
            } else {
                message += "send the seconds since 2001-01-01"
            }
            findings.append(RichPushLintFinding(.error, .shapeDateUnixSeconds, at: path, message))
        } else if now.timeIntervalSince(decoded) > plausibleDateSpan {
            findings.append(
                RichPushLintFinding(
                    .warning, .shapeDateLongPast, at: path,
                    "\(jsonNumber(seconds)) decodes in the app as \(iso(decoded)) (seconds since 2001-01-01): a duration given for a date? A Date is sent as the seconds since 2001-01-01 of that moment"
                ))
        }
    }

    /// "798000000 (2026-04-14T…)" for an ISO 8601 string that parses, else `nil`.
    private static func suggestion(forText text: String) -> String? {
        let formatter = ISO8601DateFormatter()
        var date = formatter.date(from: text)
        if date == nil {
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            date = formatter.date(from: text)
        }
        return date.map { "\(jsonNumber($0.timeIntervalSinceReferenceDate)) for that moment" }
    }

    /// A JSON value in words, for messages: `the string "x"`, `the number 1.5`, `an array`.
    /// - Parameter value: the value.
    /// - Returns: the words.
    public static func valueDescription(_ value: RichPushJSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return "the boolean \(b)"
        case .number(let n): return n.isIntegerLiteral ? "the integer \(n)" : "the number \(n)"
        case .string(let s): return "the string \"\(s.value.count > 60 ? String(s.value.prefix(60)) + "…" : s.value)\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    static func iso(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    static func jsonNumber(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// A kind in words, for messages.
    /// - Parameter kind: the kind.
    /// - Returns: e.g. `a Date`, `an array of Int`.
    public static func describe(_ kind: Kind) -> String {
        switch kind {
        case .string: return "a String"
        case .int: return "an Int"
        case .double: return "a Double"
        case .bool: return "a Bool"
        case .date: return "a Date"
        case .url: return "a URL"
        case .uuid: return "a UUID"
        case .data: return "Data"
        case .json: return "any value"
        case .array(let e): return "an array of " + describe(e).replacingOccurrences(of: "a ", with: "").replacingOccurrences(of: "an ", with: "")
        case .dictionary(let e): return "a dictionary of " + describe(e).replacingOccurrences(of: "a ", with: "").replacingOccurrences(of: "an ", with: "")
        case .object(let p): return "a struct {\(p.keys.sorted().joined(separator: ", "))}"
        case .enumeration(let values): return "an enum (\(values.map { $0.compactText() }.joined(separator: ", ")))"
        case .optional(let w): return "an optional " + describe(w)
        }
    }
}
