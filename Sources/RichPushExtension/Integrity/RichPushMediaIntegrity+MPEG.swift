extension RichPushMediaIntegrity {
    /// MPEG program streams and MPEG-1/-2 video (ISO/IEC 11172, 13818-1/-2): a pack header with
    /// its marker bits, or a sequence header with a non-zero picture size and valid aspect-ratio
    /// and frame-rate codes.
    static func checkMPEG(_ r: MediaFileReader) throws(RichPushMediaIntegrityError) {
        let start = try r.bytes(4, "the first start code")
        guard start[0] == 0, start[1] == 0, start[2] == 1 else { throw r.corrupt("no MPEG start code") }
        switch start[3] {
        case 0xBA:
            let pack = try r.byte("the pack header")
            // MPEG-2: '01' then marker bits; MPEG-1: '0010' then a marker bit.
            let mpeg2 = pack >> 6 == 0b01 && pack & 0x04 != 0
            let mpeg1 = pack >> 4 == 0b0010 && pack & 0x01 != 0
            guard mpeg2 || mpeg1 else { throw r.corrupt("the pack header's marker bits are wrong") }
            try r.skip(mpeg2 ? 9 : 7, "the pack header")
        case 0xB3:
            let header = try r.bytes(4, "the sequence header")
            let width = Int(header[0]) << 4 | Int(header[1] >> 4)
            let height = Int(header[1] & 0x0F) << 8 | Int(header[2])
            let aspect = header[3] >> 4
            let rate = header[3] & 0x0F
            guard width > 0, height > 0 else { throw r.corrupt("the sequence header says \(width)×\(height) pixels") }
            // MPEG-1 defines codes 1…14 (pel aspect ratios), MPEG-2 1…4; 0 and 15 are forbidden/reserved.
            guard (1...14).contains(aspect) else {
                throw r.corrupt("the sequence header's aspect ratio code is \(aspect)")
            }
            guard (1...8).contains(rate) else { throw r.corrupt("the sequence header's frame rate code is \(rate)") }
        default:
            throw r.corrupt("the stream starts with start code 0x\(String(start[3], radix: 16)), not a pack or sequence header")
        }
        guard r.remaining > 0 else { throw r.truncated("the stream: it holds only its first header") }
    }

    /// MPEG-2 transport streams: a sync byte (0x47) at the start of every 188-byte packet.
    static func checkTransportStream(_ r: MediaFileReader) throws(RichPushMediaIntegrityError) {
        var packet = 0
        while !r.atEnd {
            guard r.remaining >= 188 else { throw r.truncated("packet \(packet + 1) (\(r.remaining) of 188 bytes)") }
            guard try r.byte("packet \(packet + 1)") == 0x47 else { throw r.corrupt("packet \(packet + 1) at byte \(packet * 188) has no sync byte") }
            try r.skip(187, "packet \(packet + 1)")
            packet += 1
        }
    }
}
