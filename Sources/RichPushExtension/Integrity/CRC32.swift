/// CRC-32 (ISO 3309, polynomial 0xEDB88320 reflected), as PNG uses it for every chunk.
struct CRC32 {
    private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private var value: UInt32 = 0xFFFF_FFFF

    /// Adds bytes.
    mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        var c = value
        for b in bytes { c = Self.table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        value = c
    }

    /// The checksum of everything added.
    var checksum: UInt32 { value ^ 0xFFFF_FFFF }
}
