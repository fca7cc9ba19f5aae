extension RichPushMediaIntegrity {
    /// RIFF files (WAV, AVI): the RIFF size against the file's, every chunk inside it (sizes padded
    /// to even), then what the form needs: WAV a valid `fmt ` and a complete `data` chunk; AVI a
    /// `hdrl` list with `avih` and a `movi` list.
    static func checkRIFF(_ r: MediaFileReader, form: String) throws(RichPushMediaIntegrityError) {
        guard try r.fourCC("the RIFF header") == "RIFF" else { throw r.corrupt("no RIFF header") }
        let riffSize = try r.u32le("the RIFF header")
        guard try r.fourCC("the RIFF header") == form else { throw r.corrupt("the RIFF form is not \(form)") }
        guard riffSize >= 4 else { throw r.corrupt("the RIFF size is \(riffSize)") }
        guard riffSize + 8 <= r.size else {
            throw r.truncated("the RIFF container, which claims \(riffSize + 8) bytes")
        }
        let end = riffSize + 8
        var found: [String: (start: Int, size: Int)] = [:]
        var lists: Set<String> = []
        while end - r.position >= 8 {
            let start = r.position
            let id = try r.fourCC("the chunk header at byte \(start)")
            let size = try r.u32le("the chunk header at byte \(start)")
            guard start + 8 + size <= end else {
                throw r.truncated("the \(id) chunk at byte \(start), which claims \(size) bytes")
            }
            if found[id] == nil { found[id] = (start + 8, size) }
            if id == "LIST", size >= 4 { lists.insert(try r.fourCC("the LIST type at byte \(start)")) }
            try r.seek(to: start + 8 + size + (size & 1))
        }
        if form == "WAVE" {
            guard let fmt = found["fmt "] else { throw r.corrupt("no fmt chunk: the audio format is unknown") }
            guard fmt.size >= 16 else { throw r.corrupt("the fmt chunk has \(fmt.size) bytes; it needs at least 16") }
            try r.seek(to: fmt.start)
            let encoding = try r.u16le("the fmt chunk")
            let channels = try r.u16le("the fmt chunk")
            let rate = try r.u32le("the fmt chunk")
            _ = try r.u32le("the fmt chunk")
            let blockAlign = try r.u16le("the fmt chunk")
            guard encoding != 0, channels > 0, rate > 0, blockAlign > 0 else {
                throw r.corrupt("the fmt chunk says format \(encoding), \(channels) channels, \(rate) Hz, block \(blockAlign)")
            }
            guard found["data"] != nil else { throw r.corrupt("no data chunk: no audio") }
        } else {
            guard lists.contains("hdrl") else { throw r.corrupt("no hdrl list: the AVI header is missing") }
            guard lists.contains("movi") else { throw r.corrupt("no movi list: the AVI has no frames") }
        }
    }
}
