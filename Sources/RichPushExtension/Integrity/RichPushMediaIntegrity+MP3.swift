extension RichPushMediaIntegrity {
    /// MP3 (ISO/IEC 11172-3, 13818-3 Layer III): any ID3v2 tag, then frame after frame, each
    /// header in sync where the previous frame ends, to the end of the file (or an ID3v1 / APE tag).
    static func checkMP3(_ r: MediaFileReader) throws(RichPushMediaIntegrityError) {
        var start = 0
        let head = try r.bytes(min(10, r.size), "the start of the file")
        if head.count == 10, head[0] == 0x49, head[1] == 0x44, head[2] == 0x33 {  // "ID3"
            guard head[6...9].allSatisfy({ $0 < 0x80 }) else { throw r.corrupt("the ID3v2 tag's size is not a syncsafe integer") }
            let size = head[6...9].reduce(0) { $0 << 7 | Int($1) }
            start = 10 + size + (head[5] & 0x10 != 0 ? 10 : 0)
            guard start < r.size else { throw r.truncated("the ID3v2 tag (\(size) bytes), before any audio frame") }
        }
        // Encoders may pad between the tag and the first frame: look a little further for it.
        var offset = start
        while true {
            try r.seek(to: offset)
            if r.remaining >= 4, frameLength(try r.bytes(4, "an audio frame header")) != nil { break }
            guard offset < min(r.size - 4, start + 4096) else {
                throw r.corrupt("no MPEG audio Layer III frame sync within 4 KB of byte \(start)")
            }
            offset += 1
        }
        var frames = 0
        while true {
            try r.seek(to: offset)
            let header = try r.bytes(min(4, r.remaining), "the audio frame header at byte \(offset)")
            if frames > 0, isTrailingTag(header, r) { return }
            guard header.count == 4 else { throw r.truncated("the audio frame header at byte \(offset)") }
            guard let length = frameLength(header) else {
                throw r.corrupt("the audio frame sync is lost at byte \(offset), after \(frames) frames")
            }
            guard offset + length <= r.size else {
                throw r.truncated("audio frame \(frames + 1) at byte \(offset) (\(length) bytes)")
            }
            frames += 1
            offset += length
            if offset == r.size { return }
        }
    }

    /// An ID3v1 tag (`TAG` and exactly 128 bytes) or an APE tag (`APETAGEX`) after the last frame.
    private static func isTrailingTag(_ header: [UInt8], _ r: MediaFileReader) -> Bool {
        let text = MediaFileReader.text(header)
        let at = r.position - header.count
        return (text.hasPrefix("TAG") && r.size - at == 128) || text == "APET" || text.hasPrefix("LYRI")
    }

    /// The length in bytes of the Layer III frame with this header, `nil` when it is not one.
    static func frameLength(_ h: [UInt8]) -> Int? {
        guard h[0] == 0xFF, h[1] & 0xE0 == 0xE0 else { return nil }
        let version = (h[1] >> 3) & 0x03  // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5, 1 reserved
        let layer = (h[1] >> 1) & 0x03  // 1 = Layer III
        let bitrateIndex = Int(h[2] >> 4)
        let rateIndex = Int((h[2] >> 2) & 0x03)
        let padding = Int((h[2] >> 1) & 0x01)
        guard version != 1, layer == 1, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let mpeg1Rates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        let mpeg2Rates = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        let sampleRates: [Int] = version == 3 ? [44_100, 48_000, 32_000] : version == 2 ? [22_050, 24_000, 16_000] : [11_025, 12_000, 8_000]
        let bitrate = (version == 3 ? mpeg1Rates : mpeg2Rates)[bitrateIndex] * 1000
        let coefficient = version == 3 ? 144 : 72
        return coefficient * bitrate / sampleRates[rateIndex] + padding
    }
}
