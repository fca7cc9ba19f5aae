extension RichPushMediaIntegrity {
    /// MPEG-4 / QuickTime (ISO/IEC 14496-12): every top-level box inside the file, and a complete
    /// `moov` holding `mvhd` and at least one `trak` (a player needs that index to play anything).
    static func checkISOBaseMedia(_ r: MediaFileReader) throws(RichPushMediaIntegrityError) {
        var sawMovie = false
        var boxes = 0
        while !r.atEnd {
            let box = try boxHeader(r, end: r.size, what: "top-level box \(boxes + 1)")
            if box.type == "moov" {
                guard !sawMovie else { throw r.corrupt("a second moov box at byte \(box.start)") }
                try checkMovie(r, end: box.end)
                sawMovie = true
            }
            try r.seek(to: box.end)
            boxes += 1
        }
        guard sawMovie else {
            throw r.corrupt("no moov box (the movie's index) among \(boxes) top-level boxes: a fragment or an incomplete upload")
        }
    }

    private struct Box {
        var type: String
        var start: Int
        var end: Int
    }

    /// Reads a box header at the reader's position; its end must lie within `end`.
    private static func boxHeader(_ r: MediaFileReader, end: Int, what: String) throws(RichPushMediaIntegrityError) -> Box {
        let start = r.position
        guard end - start >= 8 else { throw r.truncated("the header of \(what) at byte \(start)") }
        var size = try r.u32be("the header of \(what) at byte \(start)")
        let type = try r.fourCC("the header of \(what) at byte \(start)")
        var header = 8
        if size == 1 {
            let large = try r.u64be("the 64-bit size of the \(type) box at byte \(start)")
            guard large <= UInt64(Int.max) else { throw r.corrupt("the \(type) box at byte \(start) claims \(large) bytes") }
            size = Int(large)
            header = 16
        } else if size == 0 {
            size = end - start  // to the end of the enclosing space
        }
        guard size >= header else { throw r.corrupt("the \(type) box at byte \(start) claims \(size) bytes, less than its header") }
        guard start + size <= end else {
            if end == r.size {
                throw r.truncated("the \(type) box at byte \(start), which claims \(size) bytes")
            }
            throw r.corrupt("the \(type) box at byte \(start) claims \(size) bytes, past the end of its parent")
        }
        return Box(type: type, start: start, end: start + size)
    }

    private static func checkMovie(_ r: MediaFileReader, end: Int) throws(RichPushMediaIntegrityError) {
        var header = false
        var tracks = 0
        while r.position < end {
            let child = try boxHeader(r, end: end, what: "a box inside moov")
            if child.type == "mvhd" { header = true }
            if child.type == "trak" { tracks += 1 }
            try r.seek(to: child.end)
        }
        guard header else { throw r.corrupt("the moov box has no movie header (mvhd)") }
        guard tracks > 0 else { throw r.corrupt("the moov box has no track (trak)") }
    }
}
