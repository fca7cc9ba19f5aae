/// Builds PostgreSQL array literals in text format (`{"a","b",NULL}`), so a whole batch travels
/// as a few array parameters of one prepared statement (`unnest($1::text[], …)`) instead of one
/// statement, or one set of parameters, per row.
///
/// Every text element is double-quoted with `\` and `"` escaped, so commas, braces, spaces,
/// quotes, backslashes and the word NULL inside values survive exactly.
struct PostgresArrayLiteral {
    private var text = "{"
    private var empty = true

    /// Starts an empty array; `reservingCapacity` is a hint in bytes.
    init(reservingCapacity: Int = 0) {
        text.reserveCapacity(reservingCapacity)
    }

    /// Appends a text element (`nil` = NULL).
    mutating func append(_ value: String?) {
        separate()
        guard let value else {
            text += "NULL"
            return
        }
        text += "\""
        if value.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            for scalar in value.unicodeScalars {
                if scalar == "\"" || scalar == "\\" { text.unicodeScalars.append("\\") }
                text.unicodeScalars.append(scalar)
            }
        } else {
            text += value
        }
        text += "\""
    }

    /// Appends an integer element (`nil` = NULL).
    mutating func append(_ value: Int?) {
        separate()
        text += value.map(String.init) ?? "NULL"
    }

    private mutating func separate() {
        if !empty { text += "," }
        empty = false
    }

    /// The literal, e.g. `{"a",NULL,"b"}`.
    var literal: String { text + "}" }

    /// A text array literal of `values`.
    static func text(_ values: some Sequence<String?>) -> String {
        var array = PostgresArrayLiteral()
        for value in values { array.append(value) }
        return array.literal
    }

    /// A bigint array literal of `values`.
    static func integers(_ values: some Sequence<Int?>) -> String {
        var array = PostgresArrayLiteral()
        for value in values { array.append(value) }
        return array.literal
    }
}
