extension RichPushMediaIntegrity {
    /// AIFF / AIFF-C: the FORM size against the file's, every chunk inside it (big-endian sizes,
    /// padded to even), a valid `COMM` and a complete `SSND`.
    static func checkAIFF(_ r: MediaFileReader) throws(RichPushMediaIntegrityError) {
        guard try r.fourCC("the FORM header") == "FORM" else { throw r.corrupt("no FORM header") }
        let formSize = try r.u32be("the FORM header")
        let form = try r.fourCC("the FORM header")
        guard form == "AIFF" || form == "AIFC" else { throw r.corrupt("the FORM type is \(form), not AIFF or AIFC") }
        guard formSize >= 4 else { throw r.corrupt("the FORM size is \(formSize)") }
        guard formSize + 8 <= r.size else { throw r.truncated("the FORM container, which claims \(formSize + 8) bytes") }
        let end = formSize + 8
        var common: (start: Int, size: Int)?
        var sound = false
        while end - r.position >= 8 {
            let start = r.position
            let id = try r.fourCC("the chunk header at byte \(start)")
            let size = try r.u32be("the chunk header at byte \(start)")
            guard start + 8 + size <= end else { throw r.truncated("the \(id) chunk at byte \(start), which claims \(size) bytes") }
            if id == "COMM" { common = (start + 8, size) }
            if id == "SSND" {
                guard size >= 8 else { throw r.corrupt("the SSND chunk has \(size) bytes") }
                sound = true
            }
            try r.seek(to: start + 8 + size + (size & 1))
        }
        guard let common else { throw r.corrupt("no COMM chunk: the audio format is unknown") }
        guard common.size >= (form == "AIFC" ? 22 : 18) else { throw r.corrupt("the COMM chunk has \(common.size) bytes") }
        try r.seek(to: common.start)
        let channels = try r.u16be("the COMM chunk")
        let frames = try r.u32be("the COMM chunk")
        let bits = try r.u16be("the COMM chunk")
        guard channels > 0, bits > 0, bits <= 32 else {
            throw r.corrupt("the COMM chunk says \(channels) channels of \(bits)-bit samples")
        }
        guard sound || frames == 0 else { throw r.corrupt("no SSND chunk: the \(frames) sample frames are missing") }
    }
}
