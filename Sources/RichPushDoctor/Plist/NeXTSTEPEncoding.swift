import Foundation

/// The NeXTSTEP character set, which `\ooo` escapes in old-style property lists name
/// (CoreFoundation: "octal escapes are NeXTSTEP-encoded bytes").
///
/// The table comes from Foundation's own `String.Encoding.nextstep` converter; bytes below 0x80
/// are ASCII.
enum NeXTSTEPEncoding {
    /// Unicode scalar values for bytes 0…255 (U+FFFD where the converter has none).
    static let table: [UInt32] = (0...255).map { (byte: Int) -> UInt32 in
        if byte < 0x80 { return UInt32(byte) }
        return String(data: Data([UInt8(byte)]), encoding: .nextstep)?.unicodeScalars.first?.value ?? 0xFFFD
    }

    /// The Unicode scalar value of a NeXTSTEP byte.
    /// - Parameter byte: the byte.
    /// - Returns: its scalar value (U+FFFD for an unmapped byte).
    static func unicode(forByte byte: UInt8) -> UInt32 {
        table[Int(byte)]
    }
}
