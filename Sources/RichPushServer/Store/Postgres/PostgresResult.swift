import CLibPQ
import Foundation

/// The rows of one finished statement (a `PGresult` in text format), freed with the object.
final class PostgresResult {
    private let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    /// The number of rows.
    var count: Int { Int(PQntuples(handle)) }

    /// The command tag, e.g. `INSERT 0 3`.
    var commandStatus: String { PQcmdStatus(handle).map { String(cString: $0) } ?? "" }

    /// Column `column` of row `row` as text, `nil` when SQL NULL or out of range.
    func text(_ row: Int, _ column: Int) -> String? {
        guard row >= 0, row < count, column >= 0, column < Int(PQnfields(handle)) else { return nil }
        let r = Int32(row), c = Int32(column)
        if PQgetisnull(handle, r, c) == 1 { return nil }
        return PQgetvalue(handle, r, c).map { String(cString: $0) }
    }

    /// Column `column` of row `row` as an integer (`bigint`, `integer` or an integral
    /// `numeric` such as `SUM(bigint)`), `nil` when SQL NULL or not an integer.
    func int(_ row: Int, _ column: Int) -> Int? {
        text(row, column).flatMap { Int($0) }
    }

    /// Column `column` of row `row` as its bytes (a binary-format result's `bytea` as stored,
    /// a `text` as UTF-8), `nil` when SQL NULL or out of range.
    func bytes(_ row: Int, _ column: Int) -> Data? {
        guard row >= 0, row < count, column >= 0, column < Int(PQnfields(handle)) else { return nil }
        let r = Int32(row), c = Int32(column)
        if PQgetisnull(handle, r, c) == 1 { return nil }
        let length = Int(PQgetlength(handle, r, c))
        guard let value = PQgetvalue(handle, r, c) else { return nil }
        return Data(bytes: value, count: length)
    }

    /// Column `column` of row `row` of a binary-format result as a `bigint` (8 bytes, big-endian).
    func binaryInt64(_ row: Int, _ column: Int) -> Int? {
        guard let data = bytes(row, column), data.count == 8 else { return nil }
        return Int(Int64(bitPattern: data.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
    }

    /// Every row, read with `read`.
    func rows<T>(_ read: (Int) -> T) -> [T] {
        (0..<count).map(read)
    }
}
