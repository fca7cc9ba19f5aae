import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// RichPush's own check before handing a file to iOS: real files pass; the same files cut short
/// or with a broken field are refused, saying what and where.
@Suite("Media integrity before the hand-over")
struct MediaIntegrityTests {
    static let fixtures: [(String, RichPushMediaFormat)] = [
        ("photo.jpg", .jpeg), ("progressive.jpg", .jpeg), ("logo.png", .png), ("anim.gif", .gif), ("chime.mp3", .mp3),
        ("chime.m4a", .mpeg4Audio), ("chime.wav", .wav), ("chime.aiff", .aiff), ("clip.mp4", .mpeg4), ("clip.mov", .quickTime),
    ]

    /// Writes `bytes` to a fresh file and checks it as `format`.
    static func check(_ bytes: [UInt8], as format: RichPushMediaFormat) throws -> RichPushMediaIntegrityError? {
        let dir = try Fixtures.temporaryDirectory("richpush-integrity")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("media.\(format.fileExtension)")
        try Data(bytes).write(to: file)
        do throws(RichPushMediaIntegrityError) {
            try RichPushMediaIntegrity.check(file, format: format)
            return nil
        } catch {
            return error
        }
    }

    static func bytes(_ fixture: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: Fixtures.media(fixture))) }

    /// The offset of the first occurrence of `pattern`.
    static func offset(of pattern: [UInt8], in bytes: [UInt8]) throws -> Int {
        try #require((0...(bytes.count - pattern.count)).first { Array(bytes[$0..<$0 + pattern.count]) == pattern })
    }

    @Test(arguments: fixtures)
    func realFilesPass(fixture: String, format: RichPushMediaFormat) throws {
        #expect(RichPushMediaFormat.sniff(try Self.bytes(fixture)) == format)
        let error = try Self.check(try Self.bytes(fixture), as: format)
        #expect(error == nil, "\(String(describing: error))")
    }

    /// An interrupted download: every fixture cut at 90%, 50% and 10% of its length.
    @Test(arguments: fixtures)
    func filesCutShortAreRefused(fixture: String, format: RichPushMediaFormat) throws {
        let whole = try Self.bytes(fixture)
        for fraction in [0.9, 0.5, 0.1] {
            let cut = Array(whole.prefix(Int(Double(whole.count) * fraction)))
            let error = try #require(try Self.check(cut, as: format), "\(fixture) cut to \(cut.count) bytes passed")
            #expect([.truncated, .corrupt].contains(error.code), "\(error)")
            #expect(error.message.hasPrefix(format.name + ":"), "\(error.message)")
        }
        #expect(try Self.check(Array(whole.prefix(0)), as: format)?.code == .truncated)
    }

    @Test func aJPEGWithoutItsEndOfImageMarkerIsTruncated() throws {
        let whole = try Self.bytes("photo.jpg")
        #expect(Array(whole.suffix(2)) == [0xFF, 0xD9])
        let error = try #require(try Self.check(Array(whole.dropLast(2)), as: .jpeg))
        #expect(error.code == .truncated)
        #expect(error.message.contains("end-of-image"))
    }

    @Test(arguments: [("photo.jpg", UInt8(0xC0)), ("progressive.jpg", UInt8(0xC2))])
    func aJPEGFrameOfZeroWidthIsCorrupt(fixture: String, frameMarker: UInt8) throws {
        var bytes = try Self.bytes(fixture)
        let frame = try Self.offset(of: [0xFF, frameMarker], in: bytes)
        bytes[frame + 7] = 0  // width, big-endian, after FF Cx, length (2), precision (1), height (2)
        bytes[frame + 8] = 0
        let error = try #require(try Self.check(bytes, as: .jpeg))
        #expect(error.code == .corrupt)
        #expect(error.message.contains("0 pixels") || error.message.contains("×600") || error.message.contains("600"), "\(error.message)")
    }

    @Test func aPNGWithADamagedByteFailsItsCRC() throws {
        var bytes = try Self.bytes("logo.png")
        let data = try Self.offset(of: Array("IDAT".utf8), in: bytes)
        bytes[data + 20] ^= 0x55
        let error = try #require(try Self.check(bytes, as: .png))
        #expect(error.code == .corrupt)
        #expect(error.message.contains("IDAT") && error.message.contains("CRC-32"))
    }

    @Test func aPNGHeaderOfZeroWidthIsCorrupt() throws {
        var bytes = try Self.bytes("logo.png")
        for i in 16..<20 { bytes[i] = 0 }
        let error = try #require(try Self.check(bytes, as: .png))
        #expect(error.code == .corrupt)
        #expect(error.message.contains("IHDR"))
    }

    @Test func aGIFWithoutItsTrailerIsRefused() throws {
        var bytes = try Self.bytes("anim.gif")
        #expect(bytes.last == 0x3B)
        bytes[bytes.count - 1] = 0x00
        #expect(try Self.check(bytes, as: .gif)?.code == .corrupt)
        #expect(try Self.check(Array(bytes.dropLast()), as: .gif)?.code == .truncated)
    }

    @Test(arguments: [("clip.mp4", RichPushMediaFormat.mpeg4), ("chime.m4a", RichPushMediaFormat.mpeg4Audio), ("clip.mov", RichPushMediaFormat.quickTime)])
    func aMovieWithoutItsMoovBoxIsCorrupt(fixture: String, format: RichPushMediaFormat) throws {
        var bytes = try Self.bytes(fixture)
        let moov = try Self.offset(of: Array("moov".utf8), in: bytes)
        bytes.replaceSubrange(moov..<moov + 4, with: Array("free".utf8))
        let error = try #require(try Self.check(bytes, as: format))
        #expect(error.code == .corrupt)
        #expect(error.message.contains("no moov box"))
    }

    @Test func anMP3WhoseFrameSyncIsLostIsCorrupt() throws {
        var bytes = try Self.bytes("chime.mp3")
        // The ID3v2 tag's end, then the second frame's header overwritten.
        let tag = 10 + bytes[6...9].reduce(0) { $0 << 7 | Int($1) }
        let first = try #require((tag..<bytes.count - 4).first { bytes[$0] == 0xFF && bytes[$0 + 1] & 0xE0 == 0xE0 })
        bytes.replaceSubrange(first + 200..<first + 1200, with: [UInt8](repeating: 0x55, count: 1000))
        let error = try #require(try Self.check(bytes, as: .mp3))
        #expect(error.code == .corrupt)
        #expect(error.message.contains("sync"))
        // Nothing but zeros after the tag: no frame at all.
        var silent = try Self.bytes("chime.mp3")
        silent.replaceSubrange(tag..<silent.count, with: [UInt8](repeating: 0, count: silent.count - tag))
        #expect(try Self.check(silent, as: .mp3)?.message.contains("no MPEG audio Layer III frame sync") == true)
    }

    @Test func aWAVWithoutChannelsOrWithALongerDataChunkIsRefused() throws {
        var noChannels = try Self.bytes("chime.wav")
        let fmt = try Self.offset(of: Array("fmt ".utf8), in: noChannels)
        noChannels[fmt + 10] = 0  // channels, little-endian, after "fmt ", size (4), format (2)
        noChannels[fmt + 11] = 0
        #expect(try Self.check(noChannels, as: .wav)?.code == .corrupt)
        var longer = try Self.bytes("chime.wav")
        let data = try Self.offset(of: Array("data".utf8), in: longer)
        longer[data + 7] = 0x7F  // the data chunk now claims ~2 GB
        let error = try #require(try Self.check(longer, as: .wav))
        #expect(error.code == .truncated)
        #expect(error.message.contains("data chunk"))
    }

    @Test func anAIFFWithoutChannelsIsCorrupt() throws {
        var bytes = try Self.bytes("chime.aiff")
        let comm = try Self.offset(of: Array("COMM".utf8), in: bytes)
        bytes[comm + 8] = 0
        bytes[comm + 9] = 0
        let error = try #require(try Self.check(bytes, as: .aiff))
        #expect(error.code == .corrupt)
        #expect(error.message.contains("COMM"))
    }

    /// No MPEG, MPEG-2 or AVI file among the fixtures: minimal streams built here, from the
    /// standards' header layouts.
    @Test func mpegAVIAndTransportStreamHeadersAreChecked() throws {
        let sequence: [UInt8] = [0x00, 0x00, 0x01, 0xB3, 0x16, 0x01, 0x20, 0x13, 0xFF, 0xFF, 0xE0, 0x18, 0x00, 0x00, 0x01, 0xB7]
        #expect(try Self.check(sequence, as: .mpeg) == nil)
        var zeroWidth = sequence
        zeroWidth[4] = 0
        zeroWidth[5] = 0x01
        #expect(try Self.check(zeroWidth, as: .mpeg)?.message.contains("pixels") == true)
        var badRate = sequence
        badRate[7] = 0x10
        #expect(try Self.check(badRate, as: .mpeg2Video)?.message.contains("frame rate") == true)

        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            let n = body.count
            return Array(id.utf8) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] + body + (n % 2 == 1 ? [0] : [])
        }
        func riff(_ body: [UInt8]) -> [UInt8] { chunk("RIFF", Array("AVI ".utf8) + body) }
        let header = chunk("LIST", Array("hdrl".utf8) + chunk("avih", [UInt8](repeating: 1, count: 56)))
        let frames = chunk("LIST", Array("movi".utf8) + chunk("00dc", [1, 2, 3]))
        #expect(try Self.check(riff(header + frames), as: .avi) == nil)
        #expect(try Self.check(riff(header), as: .avi)?.message.contains("movi") == true)
        #expect(try Self.check(Array(riff(header + frames).dropLast(3)), as: .avi)?.code == .truncated)

        let packet = [0x47] + [UInt8](repeating: 0xFF, count: 187)
        #expect(try Self.check(packet + packet + packet, as: .mpeg2TransportStream) == nil)
        #expect(try Self.check(Array((packet + packet).dropLast(10)), as: .mpeg2TransportStream)?.code == .truncated)
        #expect(try Self.check(packet + [0x00] + packet.dropFirst(), as: .mpeg2TransportStream)?.code == .corrupt)
    }

    /// Through the pipeline: a JPEG cut short by the server is never reported attached.
    @Test(arguments: TransportKind.allCases)
    func aTruncatedDownloadIsTextOnlyWithReasonCorruptMedia(_ transport: TransportKind) async throws {
        let server = try await MediaServer.get()
        let configuration = try testConfiguration(deadline: arrivalDeadline)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let (result, _, run) = await runTimed(mediaPayload(server.url("/truncated/photo.jpg?bytes=60000")), configuration: configuration, transport: transport)
        await run.waitUntilSettled()
        #expect(result.outcome == .textOnly)
        #expect(result.reason == .corruptMedia)
        #expect(result.message.contains("JPEG"), "\(result.message)")
        #expect(result.httpStatus == 200)
        #expect(filesLeft(in: configuration.attachmentsDirectory).isEmpty)
    }
}
