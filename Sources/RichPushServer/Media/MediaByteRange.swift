/// One `Range: bytes=…` request header against a file of known size (RFC 9110 §14.1.2).
enum MediaByteRange: Equatable {
    /// Serve the whole file: no usable single range (several ranges, another unit, malformed).
    case whole
    /// `416`: the range starts at or past the end (or asks for the last 0 bytes).
    case unsatisfiable
    /// `206`: these bytes (upper bound exclusive).
    case part(Range<Int>)

    /// Reads a `Range` header.
    ///
    /// - Parameters:
    ///   - header: the header's value, e.g. `bytes=0-1023`.
    ///   - size: the file's size in bytes.
    /// - Returns: what to answer.
    static func parse(_ header: String, size: Int) -> MediaByteRange {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces), last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        let digits = { (s: String) in !s.isEmpty && s.utf8.count <= 18 && s.utf8.allSatisfy { (48...57).contains($0) } }
        if first.isEmpty {
            guard digits(last), let n = Int(last) else { return .whole }
            guard n > 0, size > 0 else { return .unsatisfiable }
            return .part(max(0, size - n)..<size)
        }
        guard digits(first), let start = Int(first) else { return .whole }
        var end = size - 1
        if !last.isEmpty {
            guard digits(last), let given = Int(last), given >= start else { return .whole }
            end = min(given, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .part(start..<(end + 1))
    }
}
