import Foundation
import RichPushCore

/// What an app's Live Activity types look like to its decoder: the name of its
/// `ActivityAttributes` type, the shape of its static `attributes` and of its dynamic
/// `ContentState`, written as a small JSON document the server keeps per attributes type (and
/// `richpush lint --shape FILE` reads).
///
/// ActivityKit decodes `aps.content-state` and `aps.attributes` with a default `JSONDecoder`
/// (Apple: custom encoding strategies "result in update failures"); when they do not decode,
/// APNs has already answered 200 and the activity simply does not change. Checking a payload
/// against the shape catches that before it leaves.
///
/// The format (docs/live-activities.md, "The shape of an activity"):
///
/// ```json
/// {
///   "attributes-type": "MatchAttributes",
///   "attributes": {"home": "string", "away": "string", "kickoff": "date"},
///   "content-state": {
///     "score": [ "int" ],
///     "minute": "int",
///     "phase": {"$enum": ["first-half", "half-time", "second-half", "full-time"]},
///     "lastGoal": {"$optional": {"player": "string", "at": "date"}},
///     "note": "string?"
///   }
/// }
/// ```
///
/// A type is a name — `string`, `int`, `double`, `bool`, `date` (a Swift `Date`: seconds since
/// 2001-01-01 as a number), `url`, `uuid`, `data` (base64), `json` (anything) — with `?` for an
/// optional; `[T]` (a one-element array) for an array; an object for a nested struct (its keys
/// are the properties); `{"$enum": [values]}` for a `String`/`Int` raw-value enum;
/// `{"$dictionary": T}` for `[String: T]`; `{"$optional": T}` for an optional array, struct,
/// enum or dictionary.
public struct ActivityShape: Sendable, Hashable {
    /// One property's type, as the app's `Codable` declaration reads it.
    public indirect enum Kind: Sendable, Hashable {
        /// A JSON string (`String`).
        case string
        /// A whole number (`Int`, `Int64`, `UInt`…).
        case int
        /// Any number (`Double`, `Float`, `Decimal`).
        case double
        /// `true` or `false` (`Bool`).
        case bool
        /// A Swift `Date` as a default `JSONDecoder` reads it: seconds since 2001-01-01 00:00:00 UTC.
        case date
        /// A string `URL(string:)` accepts.
        case url
        /// A UUID string (8-4-4-4-12 hex).
        case uuid
        /// Base64 text (`Data`, the default data strategy).
        case data
        /// Anything: not checked.
        case json
        /// An array of elements of one kind.
        case array(Kind)
        /// `[String: T]`: an object whose values are of one kind.
        case dictionary(Kind)
        /// A struct: its properties by key.
        case object([String: Kind])
        /// A raw-value enum: one of these values.
        case enumeration([RichPushJSONValue])
        /// An optional: `null` or absent, or the wrapped kind.
        case optional(Kind)
    }

    /// The names `Kind`'s simple cases are written with.
    public static let simpleKinds: [String: Kind] = [
        "string": .string, "int": .int, "double": .double, "float": .double, "number": .double, "bool": .bool,
        "date": .date, "url": .url, "uuid": .uuid, "data": .data, "json": .json,
    ]

    /// The name of the app's `ActivityAttributes` type (`aps.attributes-type` of a start).
    public var attributesType: String
    /// The static data's shape (an `.object`), or `nil` when not declared (then not checked).
    public var attributes: Kind?
    /// The dynamic data's shape (an `.object`): the app's `ContentState`.
    public var contentState: Kind

    /// Makes a shape.
    /// - Parameters:
    ///   - attributesType: the `ActivityAttributes` type's name.
    ///   - attributes: the static data's shape, if declared.
    ///   - contentState: the `ContentState`'s shape.
    public init(attributesType: String, attributes: Kind?, contentState: Kind) {
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
    }

    /// Reads a shape description.
    ///
    /// - Parameter data: the JSON document (see the type's documentation).
    /// - Returns: the shape.
    /// - Throws: `RichPushError` `invalid_payload` naming the key that is wrong and what is
    ///   allowed there (`content-state.eta: unknown type "datetime"; …`), or `invalid_json`.
    public static func parse(_ data: Data) throws -> ActivityShape {
        try parse(RichPushJSONValue.parseStrictly(data))
    }

    /// Reads a parsed shape description.
    ///
    /// - Parameter value: the description.
    /// - Returns: the shape.
    /// - Throws: `RichPushError` `invalid_payload` naming the key that is wrong.
    public static func parse(_ value: RichPushJSONValue) throws -> ActivityShape {
        guard let root = value.objectValue else {
            throw shapeError(nil, "a shape description is a JSON object: {\"attributes-type\": …, \"content-state\": {…}, \"attributes\": {…}}")
        }
        for key in root.keys where !["attributes-type", "attributes", "content-state"].contains(key) {
            throw shapeError(key, "not a key of a shape description; it has attributes-type, content-state and (optionally) attributes")
        }
        guard let type = root["attributes-type"]?.stringValue, !type.isEmpty else {
            throw shapeError("attributes-type", "give the name of the app's ActivityAttributes type as a string (as in aps.attributes-type)")
        }
        guard let stateValue = root["content-state"] else {
            throw shapeError("content-state", "missing: describe the properties of the app's ContentState, e.g. {\"score\": \"int\"}")
        }
        let state = try kind(stateValue, at: "content-state")
        guard case .object = state else {
            throw shapeError("content-state", "must be an object of properties (the ContentState struct), e.g. {\"score\": \"int\"}")
        }
        var attributes: Kind?
        if let value = root["attributes"] {
            let kind = try kind(value, at: "attributes")
            guard case .object = kind else {
                throw shapeError("attributes", "must be an object of properties (the ActivityAttributes struct), e.g. {\"home\": \"string\"}")
            }
            attributes = kind
        }
        return ActivityShape(attributesType: type, attributes: attributes, contentState: state)
    }

    /// The description as JSON (what `parse` reads back).
    public var jsonValue: RichPushJSONValue {
        var o: [String: RichPushJSONValue] = ["attributes-type": .string(attributesType), "content-state": Self.json(contentState)]
        if let attributes { o["attributes"] = Self.json(attributes) }
        return .object(o)
    }

    /// One kind as the description writes it.
    /// - Parameter kind: the kind.
    /// - Returns: its JSON.
    public static func json(_ kind: Kind) -> RichPushJSONValue {
        switch kind {
        case .string: return .string("string")
        case .int: return .string("int")
        case .double: return .string("double")
        case .bool: return .string("bool")
        case .date: return .string("date")
        case .url: return .string("url")
        case .uuid: return .string("uuid")
        case .data: return .string("data")
        case .json: return .string("json")
        case .array(let element): return .array([json(element)])
        case .dictionary(let value): return .object(["$dictionary": json(value)])
        case .object(let properties): return .object(properties.mapValues(json))
        case .enumeration(let values): return .object(["$enum": .array(values)])
        case .optional(let wrapped):
            if case .string(let name) = json(wrapped), !name.value.hasSuffix("?") { return .string(name.value + "?") }
            return .object(["$optional": json(wrapped)])
        }
    }

    private static let allowed =
        "use string, int, double, bool, date, url, uuid, data or json (add ? for an optional), [T] for an array, {…} for a struct, {\"$enum\": [values]}, {\"$dictionary\": T} or {\"$optional\": T}"

    private static func kind(_ value: RichPushJSONValue, at path: String) throws -> Kind {
        switch value {
        case .string(let raw):
            var name = raw.value
            var optional = false
            if name.hasSuffix("?") {
                name.removeLast()
                optional = true
            }
            var kind: Kind
            if name.hasPrefix("["), name.hasSuffix("]"), name.count > 2 {
                kind = .array(try Self.kind(.string(String(name.dropFirst().dropLast())), at: path + "[]"))
            } else if let simple = simpleKinds[name] {
                kind = simple
            } else {
                throw shapeError(path, "unknown type \"\(raw.value)\"; \(allowed)")
            }
            if optional {
                if case .optional = kind { throw shapeError(path, "\"\(raw.value)\" is optional twice") }
                kind = .optional(kind)
            }
            return kind
        case .array(let elements):
            guard elements.count == 1, let element = elements.first else {
                throw shapeError(path, "an array type is written with one element, its element type: [\"int\"] or [{…}]")
            }
            return .array(try kind(element, at: path + "[]"))
        case .object(let members):
            if let values = members["$enum"] {
                guard members.count == 1, let list = values.arrayValue, !list.isEmpty,
                    list.allSatisfy({ $0.stringValue != nil || $0.intValue != nil })
                else {
                    throw shapeError(path, "{\"$enum\": [values]} lists the raw values (strings or integers), alone in its object")
                }
                return .enumeration(list)
            }
            if let value = members["$dictionary"] {
                guard members.count == 1 else { throw shapeError(path, "{\"$dictionary\": T} stands alone in its object") }
                return .dictionary(try kind(value, at: path + ".*"))
            }
            if let value = members["$optional"] {
                guard members.count == 1 else { throw shapeError(path, "{\"$optional\": T} stands alone in its object") }
                let wrapped = try kind(value, at: path)
                if case .optional = wrapped { throw shapeError(path, "optional twice") }
                return .optional(wrapped)
            }
            if let dollar = members.keys.sorted().first(where: { $0.hasPrefix("$") }) {
                throw shapeError(path + "." + dollar, "not a shape keyword; $enum, $dictionary and $optional are")
            }
            var properties: [String: Kind] = [:]
            for (key, member) in members { properties[key] = try kind(member, at: path + "." + key) }
            return .object(properties)
        default:
            throw shapeError(path, "a type is a string such as \"int\", an array [T] or an object; got \(value.compactText()). \(allowed)")
        }
    }

    private static func shapeError(_ path: String?, _ message: String) -> RichPushError {
        RichPushError(code: .invalidPayload, message: "the activity shape: " + (path.map { "\($0): " } ?? "") + message, setting: "shape")
    }
}
