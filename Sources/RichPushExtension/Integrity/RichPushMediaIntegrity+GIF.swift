extension RichPushMediaIntegrity {
    /// GIF (87a/89a): the header, the logical screen, every block and sub-block, the trailer.
    static func checkGIF(_ r: MediaFileReader) throws(RichPushMediaIntegrityError) -> PixelSize {
        let header = MediaFileReader.text(try r.bytes(6, "the GIF header"))
        guard header == "GIF87a" || header == "GIF89a" else { throw r.corrupt("no GIF87a/GIF89a header") }
        let width = try r.u16le("the logical screen descriptor")
        let height = try r.u16le("the logical screen descriptor")
        guard width > 0, height > 0 else { throw r.corrupt("the logical screen is \(width)×\(height) pixels") }
        let size = try checkPixelCount(width, height, r)
        let flags = try r.byte("the logical screen descriptor")
        try r.skip(2, "the logical screen descriptor")
        if flags & 0x80 != 0 { try r.skip(3 << (Int(flags & 0x07) + 1), "the global colour table") }
        var images = 0
        while true {
            let at = r.position
            let introducer = try r.byte("the block at byte \(at) (no trailer: cut short)")
            switch introducer {
            case 0x3B:
                guard images > 0 else { throw r.corrupt("the trailer comes before any image") }
                return size
            case 0x21:
                _ = try r.byte("the extension at byte \(at)")
                try skipSubBlocks(r, "the extension at byte \(at)")
            case 0x2C:
                try r.skip(4, "the image descriptor at byte \(at)")
                let w = try r.u16le("the image descriptor at byte \(at)")
                let h = try r.u16le("the image descriptor at byte \(at)")
                guard w > 0, h > 0 else { throw r.corrupt("image \(images + 1) at byte \(at) is \(w)×\(h) pixels") }
                let local = try r.byte("the image descriptor at byte \(at)")
                if local & 0x80 != 0 { try r.skip(3 << (Int(local & 0x07) + 1), "the local colour table at byte \(at)") }
                let codeSize = try r.byte("the image data at byte \(at)")
                guard (1...11).contains(codeSize) else { throw r.corrupt("image \(images + 1) has LZW code size \(codeSize)") }
                try skipSubBlocks(r, "the image data of image \(images + 1)")
                images += 1
            default:
                throw r.corrupt("unknown block 0x\(String(introducer, radix: 16)) at byte \(at)")
            }
        }
    }

    private static func skipSubBlocks(_ r: MediaFileReader, _ what: String) throws(RichPushMediaIntegrityError) {
        while true {
            let size = Int(try r.byte(what))
            if size == 0 { return }
            try r.skip(size, what)
        }
    }
}
