extension RichPushMediaIntegrity {
    /// JPEG (ITU-T T.81 Annex B): markers and segment lengths up to the end-of-image marker.
    static func checkJPEG(_ r: MediaFileReader) throws(RichPushMediaIntegrityError) -> PixelSize {
        guard try r.bytes(2, "the start-of-image marker") == [0xFF, 0xD8] else {
            throw r.corrupt("no start-of-image marker (FF D8)")
        }
        var frame: PixelSize?
        var scans = 0
        var marker = try nextMarker(r)
        while true {
            switch marker {
            case 0xD9:
                guard let frame else { throw r.corrupt("end-of-image before any frame header (SOFn)") }
                guard scans > 0 else { throw r.corrupt("end-of-image before any scan (SOS): no picture data") }
                return frame
            case 0xD8:
                throw r.corrupt("a second start-of-image marker at byte \(r.position - 2)")
            case 0x01, 0xD0...0xD7:
                marker = try nextMarker(r)  // stand-alone markers
            default:
                let start = r.position - 2
                let length = try r.u16be("the length of the segment at byte \(start)")
                guard length >= 2 else { throw r.corrupt("the segment FF \(hex(marker)) at byte \(start) has length \(length)") }
                guard length - 2 <= r.remaining else {
                    throw r.truncated("the segment FF \(hex(marker)) at byte \(start) (\(length) bytes)")
                }
                if isStartOfFrame(marker) {
                    let precision = try r.byte("the frame header")
                    let height = try r.u16be("the frame header")
                    let width = try r.u16be("the frame header")
                    let components = Int(try r.byte("the frame header"))
                    guard width > 0, height > 0 else {
                        throw r.corrupt("the frame header says \(width)×\(height) pixels; both must be at least 1")
                    }
                    guard (1...4).contains(components), length == 8 + 3 * components else {
                        throw r.corrupt("the frame header has \(components) components in \(length) bytes")
                    }
                    guard (2...16).contains(precision) else {
                        throw r.corrupt("the frame header's sample precision is \(precision) bits")
                    }
                    frame = try checkPixelCount(width, height, r)
                    try r.skip(length - 8, "the frame header")
                    marker = try nextMarker(r)
                } else if marker == 0xDA {
                    guard frame != nil else { throw r.corrupt("a scan (SOS) at byte \(start) before any frame header (SOFn)") }
                    try r.skip(length - 2, "the scan header")
                    scans += 1
                    marker = try markerAfterEntropyData(r)
                } else {
                    try r.skip(length - 2, "the segment FF \(hex(marker))")
                    marker = try nextMarker(r)
                }
            }
        }
    }

    /// SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    private static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// The marker at the reader's position (fill bytes `FF` allowed before it).
    private static func nextMarker(_ r: MediaFileReader) throws(RichPushMediaIntegrityError) -> UInt8 {
        let at = r.position
        guard try r.byte("the marker at byte \(at)") == 0xFF else {
            throw r.corrupt("expected a marker (FF xx) at byte \(at)")
        }
        var b = try r.byte("the marker at byte \(at)")
        while b == 0xFF { b = try r.byte("the marker at byte \(at)") }
        guard b != 0x00 else { throw r.corrupt("expected a marker at byte \(at), found FF 00") }
        return b
    }

    /// Skips entropy-coded data (stuffed `FF 00`, restart markers) to the next marker.
    private static func markerAfterEntropyData(_ r: MediaFileReader) throws(RichPushMediaIntegrityError) -> UInt8 {
        while true {
            guard let b = try r.nextByte() else {
                throw RichPushMediaIntegrityError(
                    .truncated, "JPEG: the file ends inside the picture data, with no end-of-image marker (FF D9): cut short")
            }
            guard b == 0xFF else { continue }
            var next = try r.byte("the picture data")
            while next == 0xFF { next = try r.byte("the picture data") }
            if next == 0x00 || (0xD0...0xD7).contains(next) { continue }
            return next
        }
    }

    private static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(b >> 4)], digits[Int(b & 0x0F)]])
    }
}
