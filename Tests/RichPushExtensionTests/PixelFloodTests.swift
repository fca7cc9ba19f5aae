import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// Issue 22 item 9: images that declare more pixels than `RichPushMediaIntegrity.maximumPixels`
/// (8192 × 8192) are refused from their header, with `too_large`, before anything decodes them.
@Suite("Pixel floods")
struct PixelFloodTests {
    /// `photo.jpg` with its frame header (SOF0) rewritten to `width` × `height`.
    static func jpeg(width: Int, height: Int) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: Fixtures.media("photo.jpg")))
        let sof = try #require((0..<bytes.count - 9).first { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) })
        bytes[sof + 5] = UInt8(height >> 8)
        bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8)
        bytes[sof + 8] = UInt8(width & 0xFF)
        return bytes
    }

    /// `logo.png` with IHDR's size rewritten (and its CRC recomputed).
    static func png(width: Int, height: Int) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: Fixtures.media("logo.png")))
        for (i, v) in [width, height].enumerated() {
            for k in 0..<4 { bytes[16 + i * 4 + k] = UInt8(v >> (24 - 8 * k) & 0xFF) }
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes[12..<29] {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc = ~crc
        for k in 0..<4 { bytes[29 + k] = UInt8(crc >> (24 - 8 * UInt32(k)) & 0xFF) }
        return bytes
    }

    static func verify(_ bytes: [UInt8], _ format: RichPushMediaFormat) throws -> RichPushMediaValidationError? {
        let dir = try Fixtures.temporaryDirectory("richpush-pixel-flood")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("m.\(format.fileExtension)")
        try Data(bytes).write(to: file)
        let media = RichPushDownloadedMedia(file: file, folder: dir, format: format, bytes: bytes.count, url: file, httpStatus: 200, redirects: 0)
        do throws(RichPushMediaValidationError) {
            try RichPushMediaIntegrity.verify(media)
            return nil
        } catch {
            return error
        }
    }

    @Test("a PNG declaring 60000×60000 and a JPEG declaring 65000×65000 are too_large")
    func floodsRefused() throws {
        let png = try #require(try Self.verify(try Self.png(width: 60000, height: 60000), .png))
        #expect(png.reason == .tooLarge)
        #expect(png.message.contains("60000×60000"))
        let jpeg = try #require(try Self.verify(try Self.jpeg(width: 65000, height: 65000), .jpeg))
        #expect(jpeg.reason == .tooLarge)
    }

    @Test("at the bound (8192×8192) the header passes the pixel check; one row more does not")
    func theBound() throws {
        let dir = try Fixtures.temporaryDirectory("richpush-pixel-bound")
        defer { try? FileManager.default.removeItem(at: dir) }
        for (height, refused) in [(8192, false), (8193, true)] {
            let file = dir.appendingPathComponent("b\(height).png")
            try Data(try Self.png(width: 8192, height: height)).write(to: file)
            do throws(RichPushMediaIntegrityError) {
                let size = try RichPushMediaIntegrity.check(file, format: .png)
                #expect(!refused)
                #expect(size == .init(width: 8192, height: height))
            } catch {
                #expect(refused == (error.code == .tooManyPixels), "\(error)")
            }
        }
        #expect(RichPushMediaIntegrity.maximumPixels == 67_108_864)
    }
}
