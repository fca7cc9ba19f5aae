extension RichPushMediaIntegrity {
    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// PNG (ISO/IEC 15948): the signature, `IHDR`, every chunk's length and CRC-32, `IDAT`, `IEND`.
    static func checkPNG(_ r: MediaFileReader) throws(RichPushMediaIntegrityError) -> PixelSize {
        guard try r.bytes(8, "the PNG signature") == pngSignature else { throw r.corrupt("no PNG signature") }
        var index = 0
        var sawData = false
        var size = PixelSize(width: 0, height: 0)
        while true {
            let start = r.position
            let length = try r.u32be("the header of chunk \(index + 1) at byte \(start)")
            guard length <= 0x7FFF_FFFF else { throw r.corrupt("chunk \(index + 1) at byte \(start) claims \(length) bytes") }
            let typeBytes = try r.bytes(4, "the header of chunk \(index + 1) at byte \(start)")
            let type = MediaFileReader.text(typeBytes)
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw r.corrupt("chunk \(index + 1) at byte \(start) has no valid type (\(type))")
            }
            guard length + 4 <= r.remaining else { throw r.truncated("the \(type) chunk at byte \(start) (\(length) bytes)") }
            if index == 0 {
                guard type == "IHDR", length == 13 else { throw r.corrupt("the first chunk is \(type) (\(length) bytes); it must be IHDR (13 bytes)") }
            }
            var crc = CRC32()
            crc.update(typeBytes)
            if type == "IHDR" {
                guard index == 0 else { throw r.corrupt("a second IHDR chunk at byte \(start)") }
                let data = try r.bytes(13, "the IHDR chunk")
                crc.update(data)
                size = try checkHeader(data, r)
            } else {
                try r.stream(length, "the \(type) chunk at byte \(start)") { crc.update($0) }
            }
            let stored = UInt32(try r.u32be("the CRC of the \(type) chunk at byte \(start)"))
            guard stored == crc.checksum else {
                throw r.corrupt("the \(type) chunk at byte \(start) fails its CRC-32 check (damaged bytes)")
            }
            if type == "IDAT" { sawData = true }
            if type == "IEND" {
                guard sawData else { throw r.corrupt("IEND without any IDAT chunk: no picture data") }
                guard length == 0 else { throw r.corrupt("the IEND chunk has \(length) bytes of data") }
                return size
            }
            index += 1
        }
    }

    private static func checkHeader(_ d: [UInt8], _ r: MediaFileReader) throws(RichPushMediaIntegrityError) -> PixelSize {
        let width = Int(d[0]) << 24 | Int(d[1]) << 16 | Int(d[2]) << 8 | Int(d[3])
        let height = Int(d[4]) << 24 | Int(d[5]) << 16 | Int(d[6]) << 8 | Int(d[7])
        guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
            throw r.corrupt("IHDR says \(width)×\(height) pixels; both must be 1…2³¹−1")
        }
        let depth = d[8]
        let colour = d[9]
        let allowed: [UInt8: [UInt8]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard let depths = allowed[colour], depths.contains(depth) else {
            throw r.corrupt("IHDR has colour type \(colour) with bit depth \(depth), a combination PNG does not define")
        }
        guard d[10] == 0, d[11] == 0, d[12] <= 1 else {
            throw r.corrupt("IHDR has compression \(d[10]), filter \(d[11]), interlace \(d[12]); PNG defines 0, 0 and 0…1")
        }
        return try checkPixelCount(width, height, r)
    }
}
