import Foundation

/// Apple's binary property list (`bplist00`), read into `PlistValue` with its shared references
/// kept shared and a bound on what they expand to.
///
/// A binary plist names each object once and refers to it by number, so a 150-byte file whose
/// arrays each hold the next one twice describes 2³⁰ values; Foundation's reader expanded them
/// into a tree and aborted at 3.7 GB. Here each object is read once (an array that two others
/// hold is the same `PlistValue`, its storage shared), a reference cycle is an error, and the
/// values the tree would have once expanded are counted: past `maximumNodes` the file is
/// refused, so nothing that later walks the value (the checks, `Hashable`) can be made to walk
/// billions of nodes.
///
/// Format (CoreFoundation's `CFBinaryPList.c`): the header `bplist00`, the objects, a table of
/// their offsets, and a 32-byte trailer (offset and reference sizes, the object count, the top
/// object, the table's offset).
enum BinaryPropertyList {
    /// The most values a binary plist may expand to: 1,000,000 (an Info.plist or entitlements
    /// file holds tens to hundreds).
    static let maximumNodes = 1_000_000

    /// Reads a binary property list.
    ///
    /// - Parameters:
    ///   - data: the file's bytes (starting `bplist00`).
    ///   - fileName: the name errors are reported against.
    /// - Returns: the top value.
    /// - Throws: `PropertyListError` for a malformed file, a reference cycle, or more than
    ///   `maximumNodes` values once expanded.
    static func parse(_ data: Data, fileName: String) throws(PropertyListError) -> PlistValue {
        var reader = Reader(bytes: [UInt8](data), fileName: fileName)
        return try reader.read()
    }

    private struct Reader {
        let bytes: [UInt8]
        let fileName: String
        var offsets: [Int] = []
        var referenceSize = 1
        /// Each object once read: the value and the values it expands to (saturated).
        var done: [Int: (value: PlistValue, nodes: Int)] = [:]
        var reading: Set<Int> = []

        init(bytes: [UInt8], fileName: String) {
            self.bytes = bytes
            self.fileName = fileName
        }

        func error(_ message: String) -> PropertyListError {
            PropertyListError(file: fileName, line: 0, message: "is not a valid binary property list (\(message))")
        }

        func integer(at offset: Int, size: Int) throws(PropertyListError) -> Int {
            guard size >= 1, size <= 8, offset >= 0, offset + size <= bytes.count else { throw error("a number runs past the end of the file") }
            var value: UInt64 = 0
            for i in offset..<(offset + size) { value = value << 8 | UInt64(bytes[i]) }
            guard value <= UInt64(Int.max) else { throw error("a size or offset is out of range") }
            return Int(value)
        }

        mutating func read() throws(PropertyListError) -> PlistValue {
            guard bytes.count >= 8 + 32 else { throw error("it is shorter than a header and a trailer") }
            let trailer = bytes.count - 32
            let offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            let count = try integer(at: trailer + 8, size: 8)
            let top = try integer(at: trailer + 16, size: 8)
            let table = try integer(at: trailer + 24, size: 8)
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count >= 1, top < count,
                count <= (trailer - table) / offsetSize, table >= 8, table <= trailer
            else { throw error("its trailer does not describe the file") }
            offsets.reserveCapacity(count)
            for i in 0..<count {
                let offset = try integer(at: table + i * offsetSize, size: offsetSize)
                guard offset >= 8, offset < table else { throw error("object \(i) lies outside the objects") }
                offsets.append(offset)
            }
            let (value, nodes) = try object(top)
            guard nodes <= maximumNodes else {
                throw PropertyListError(
                    file: fileName, line: 0,
                    message:
                        "is a binary property list whose shared references expand to more than \(maximumNodes) values; it was not read (an Info.plist or entitlements file holds a few hundred)"
                )
            }
            return value
        }

        /// The length that follows a marker whose low nibble is 0xF: an integer object.
        func length(_ marker: UInt8, at offset: Int) throws(PropertyListError) -> (count: Int, start: Int) {
            let low = Int(marker & 0x0F)
            guard low == 0x0F else { return (low, offset + 1) }
            guard offset + 1 < bytes.count, bytes[offset + 1] & 0xF0 == 0x10 else { throw error("a length is not an integer") }
            let size = 1 << Int(bytes[offset + 1] & 0x0F)
            guard size <= 8 else { throw error("a length is too large") }
            return (try integer(at: offset + 2, size: size), offset + 2 + size)
        }

        mutating func object(_ index: Int) throws(PropertyListError) -> (PlistValue, Int) {
            if let known = done[index] { return (known.value, known.nodes) }
            guard index >= 0, index < offsets.count else { throw error("a reference names object \(index), which does not exist") }
            guard reading.insert(index).inserted else { throw error("object \(index) contains itself (a reference cycle)") }
            defer { reading.remove(index) }
            let offset = offsets[index]
            let marker = bytes[offset]
            var nodes = 1
            let value: PlistValue
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: value = .bool(false)
                case 0x09: value = .bool(true)
                default: value = .string("")
                }
            case 0x1:
                let size = 1 << Int(marker & 0x0F)
                if size == 16 {
                    // 128-bit: CoreFoundation writes negative 64-bit integers so; the low 8 bytes hold them.
                    guard offset + 17 <= bytes.count else { throw error("an integer runs past the end of the file") }
                    var v: UInt64 = 0
                    for i in (offset + 9)..<(offset + 17) { v = v << 8 | UInt64(bytes[i]) }
                    value = .integer(Int(truncatingIfNeeded: v))
                } else {
                    guard size <= 8, offset + 1 + size <= bytes.count else { throw error("an integer runs past the end of the file") }
                    var v: UInt64 = 0
                    for i in (offset + 1)..<(offset + 1 + size) { v = v << 8 | UInt64(bytes[i]) }
                    value = .integer(size == 8 ? Int(truncatingIfNeeded: v) : Int(v))
                }
            case 0x2, 0x3:
                let size = marker == 0x33 ? 8 : 1 << Int(marker & 0x0F)
                guard size == 4 || size == 8, offset + 1 + size <= bytes.count else { throw error("a real or date is malformed") }
                var v: UInt64 = 0
                for i in (offset + 1)..<(offset + 1 + size) { v = v << 8 | UInt64(bytes[i]) }
                let number = size == 4 ? Double(Float(bitPattern: UInt32(v))) : Double(bitPattern: v)
                value = marker == 0x33 ? .date(Date(timeIntervalSinceReferenceDate: number)) : .real(number)
            case 0x4:
                let (count, start) = try length(marker, at: offset)
                guard start + count <= bytes.count else { throw error("data runs past the end of the file") }
                value = .data(Data(bytes[start..<(start + count)]))
            case 0x5:
                let (count, start) = try length(marker, at: offset)
                guard start + count <= bytes.count else { throw error("a string runs past the end of the file") }
                value = .string(String(decoding: bytes[start..<(start + count)], as: UTF8.self))
            case 0x6:
                let (count, start) = try length(marker, at: offset)
                guard count <= (bytes.count - start) / 2 else { throw error("a string runs past the end of the file") }
                var units: [UInt16] = []
                units.reserveCapacity(count)
                for i in 0..<count { units.append(UInt16(bytes[start + 2 * i]) << 8 | UInt16(bytes[start + 2 * i + 1])) }
                value = .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                let size = Int(marker & 0x0F) + 1
                value = .integer(try integer(at: offset + 1, size: min(size, 8)))
            case 0xA, 0xC:
                let (count, start) = try length(marker, at: offset)
                guard count <= (bytes.count - start) / referenceSize else { throw error("an array runs past the end of the file") }
                var elements: [PlistValue] = []
                elements.reserveCapacity(min(count, 4096))
                for i in 0..<count {
                    let (element, size) = try object(try integer(at: start + i * referenceSize, size: referenceSize))
                    elements.append(element)
                    nodes = Self.add(nodes, size)
                }
                value = .array(elements)
            case 0xD:
                let (count, start) = try length(marker, at: offset)
                guard count <= (bytes.count - start) / (2 * referenceSize) else { throw error("a dictionary runs past the end of the file") }
                var dictionary: [String: PlistValue] = [:]
                for i in 0..<count {
                    let (key, _) = try object(try integer(at: start + i * referenceSize, size: referenceSize))
                    guard let name = key.string else { throw error("a dictionary key is not a string") }
                    let (element, size) = try object(try integer(at: start + (count + i) * referenceSize, size: referenceSize))
                    dictionary[name] = element
                    nodes = Self.add(nodes, Self.add(size, 1))
                }
                value = .dictionary(dictionary)
            default:
                throw error(String(format: "an object of unknown kind 0x%02x", marker))
            }
            // Stop as soon as the expansion is past the bound: the rest need not be read.
            guard nodes <= maximumNodes else {
                throw PropertyListError(
                    file: fileName, line: 0,
                    message:
                        "is a binary property list whose shared references expand to more than \(maximumNodes) values; it was not read (an Info.plist or entitlements file holds a few hundred)"
                )
            }
            done[index] = (value, nodes)
            return (value, nodes)
        }

        static func add(_ a: Int, _ b: Int) -> Int {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .max : sum
        }
    }
}
