import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The envelope of the JSON bodies the server's JSON endpoints take (`POST /v1/pushes`,
/// `POST /v1/pushes/{push_id}/sends`, `POST /v1/devices`): one strict JSON object (RFC 8259, no
/// duplicate keys, at most 512 levels deep) with only the fields the endpoint knows.
enum JSONRequestBody {
    /// Reads a body.
    ///
    /// - Parameters:
    ///   - body: the request body.
    ///   - known: the fields the endpoint takes; any other is refused by name.
    ///   - example: a short valid body for the messages, e.g. `e.g. {"token": "<hex>"}`.
    /// - Returns: the object's fields.
    /// - Throws: `HTTPResponseError` 400 with field `body` (not JSON, not an object, too deep) or
    ///   the unknown field's name.
    static func object(_ body: Data, known: Set<String>, example: String) throws -> [String: RichPushJSONValue] {
        let json: RichPushJSONValue
        do {
            json = try RichPushJSONValue.parseStrictly(body)
        } catch let duplicate as JSONDuplicateKeyError {
            throw duplicateField(duplicate)
        } catch let error as RichPushError {
            // A key given twice is refused as receipts refuse it (`duplicate_field`): JSON parsers
            // disagree on which value wins, so none is taken.
            do {
                _ = try RichPushJSONValue.parseRefusingDuplicateKeys(body)
            } catch let duplicate as JSONDuplicateKeyError {
                throw duplicateField(duplicate)
            } catch {}
            if let tooDeep = JSONNesting.tooDeepMessage(body) { throw HTTPResponseError(field: "body", message: tooDeep) }
            throw HTTPResponseError(field: "body", message: "the body is \(error.message); send a JSON object, \(example)")
        }
        guard let root = json.objectValue else {
            throw HTTPResponseError(field: "body", message: "the body must be a JSON object, \(example)")
        }
        if let unknown = root.keys.sorted().first(where: { !known.contains($0) }) {
            let name = String(unknown.prefix(64))
            throw HTTPResponseError(field: name, message: "unknown field '\(name)'; the fields are \(known.sorted().joined(separator: ", "))")
        }
        return root
    }

    /// The 400 `duplicate_field` for a key given twice, naming it and where it is.
    /// - Parameter duplicate: the parser's error.
    /// - Returns: the error to answer.
    static func duplicateField(_ duplicate: JSONDuplicateKeyError) -> HTTPResponseError {
        let name = String(duplicate.key.prefix(64))
        return HTTPResponseError(
            code: "duplicate_field", field: name,
            message: "\(name) was given more than once (line \(duplicate.line), column \(duplicate.column)); send it once")
    }

    /// A list field (`tokens`, `results`): a JSON array of at most `maximum` items.
    ///
    /// - Parameters:
    ///   - value: the field's value.
    ///   - field: its name.
    ///   - allowEmpty: whether `[]` is accepted (`tokens` beside `user_ids`).
    ///   - maximum: the most items one request may hold.
    ///   - expected: what the field must be, e.g. `a non-empty array of device tokens`.
    ///   - split: what to do about too many, e.g. `split the list into several requests`.
    /// - Returns: the items.
    /// - Throws: `HTTPResponseError` 400 naming the field, 413 `too_many_tokens` past `maximum`.
    static func list(_ value: RichPushJSONValue, field: String, allowEmpty: Bool = false, maximum: Int, expected: String, split: String) throws
        -> [RichPushJSONValue]
    {
        guard let list = value.arrayValue, allowEmpty || !list.isEmpty else {
            throw HTTPResponseError(field: field, message: "\(field) must be \(expected)")
        }
        guard list.count <= maximum else {
            throw HTTPResponseError(
                status: 413, code: "too_many_tokens", field: field, message: "\(list.count) \(field) in one request; at most \(maximum): \(split)")
        }
        return list
    }
}
