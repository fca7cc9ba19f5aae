import Foundation

/// A value bound to a statement parameter.
enum SQLiteValue {
    case null
    case integer(Int)
    case real(Double)
    case text(String)
    case blob(Data)

    /// `.text` or `.null`.
    static func optional(_ s: String?) -> SQLiteValue { s.map { .text($0) } ?? .null }
    /// `.integer` or `.null`.
    static func optional(_ i: Int?) -> SQLiteValue { i.map { .integer($0) } ?? .null }
}
