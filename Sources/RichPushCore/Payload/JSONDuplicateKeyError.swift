import Foundation

/// A key given twice in one JSON object, refused by `RichPushJSONValue.parseRefusingDuplicateKeys(_:)`.
///
/// RFC 8259 §4 leaves a duplicate key's meaning open (most parsers keep the last value); an
/// endpoint that takes a form and JSON alike refuses it in both, naming the field.
@_spi(RichPushInternal)
public struct JSONDuplicateKeyError: Error, Sendable, CustomStringConvertible {
    /// The stable code: `duplicate_key`.
    public static let code = RichPushError.Code(rawValue: "duplicate_key")

    /// The key given twice (unescaped).
    public var key: String
    /// Where its second occurrence starts: line, 1-based.
    public var line: Int
    /// Where its second occurrence starts: column in characters, 1-based.
    public var column: Int
    /// The message, naming line, column and the key.
    public var message: String

    public var description: String { message }
}
