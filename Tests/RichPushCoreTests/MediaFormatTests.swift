import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@Suite struct MediaFormatTests {
    @Test(arguments: [
        ("photo.jpg", "public.jpeg"), ("progressive.jpg", "public.jpeg"), ("logo.png", "public.png"),
        ("anim.gif", "com.compuserve.gif"), ("chime.mp3", "public.mp3"), ("chime.m4a", "public.mpeg-4-audio"),
        ("chime.wav", "com.microsoft.waveform-audio"), ("chime.aiff", "public.aiff-audio"),
        ("clip.mp4", "public.mpeg-4"),
    ])
    func attachableFixturesAreRecognisedByTheirBytes(file: String, uti: String) throws {
        let bytes = try Data(contentsOf: Fixtures.media(file))
        let format = try #require(RichPushMediaFormat.sniff(bytes))
        #expect(format.uniformTypeIdentifier == uti)
        #expect(format.isAttachable)
    }

    @Test func quickTimeIsVideoOutsideApplesTableThatAConfigurationMayOptInto() throws {
        let format = try #require(RichPushMediaFormat.sniff(try Data(contentsOf: Fixtures.media("clip.mov"))))
        #expect(format == .quickTime)
        #expect(format.kind == .video)
        #expect(!format.isAttachable)
        #expect(RichPushMediaFormat.optInAttachmentFormats.contains(format))
    }

    @Test func applesTableIsExactlyElevenUTTypes() {
        #expect(
            Set(RichPushMediaFormat.appleAttachmentFormats.map(\.uniformTypeIdentifier)) == [
                "public.jpeg", "com.compuserve.gif", "public.png",
                "public.aiff-audio", "com.microsoft.waveform-audio", "public.mp3", "public.mpeg-4-audio",
                "public.mpeg", "public.mpeg-2-video", "public.mpeg-4", "public.avi",
            ])
        #expect(RichPushMediaFormat.appleAttachmentFormats.filter { $0.kind == .image }.count == 3)
        #expect(RichPushMediaFormat.appleAttachmentFormats.filter { $0.kind == .audio }.count == 4)
        #expect(RichPushMediaFormat.appleAttachmentFormats.filter { $0.kind == .video }.count == 4)
    }

    @Test func anMPEG2SequenceExtensionMakesAnElementaryStreamMPEG2Video() {
        // Sequence header 352×288, aspect 1, 25 fps, then (MPEG-2 only) a sequence extension.
        let mpeg1: [UInt8] = [0x00, 0x00, 0x01, 0xB3, 0x16, 0x01, 0x20, 0x13, 0xFF, 0xFF, 0xE0, 0x18]
        let mpeg2 = mpeg1 + [0x00, 0x00, 0x01, 0xB5, 0x14, 0x8A, 0x00, 0x01, 0x00, 0x00]
        #expect(RichPushMediaFormat.sniff(mpeg1) == .mpeg)
        #expect(RichPushMediaFormat.sniff(mpeg2) == .mpeg2Video)
        #expect(RichPushMediaFormat.sniff([0x00, 0x00, 0x01, 0xBA, 0x44, 0x00, 0x04, 0x00, 0x04, 0x01]) == .mpeg)
    }

    @Test(arguments: [("photo.webp", "WebP"), ("photo.heic", "HEIC"), ("icon.svg", "SVG"), ("tiny.bmp", "BMP")])
    func knownMediaThatIOSDoesNotAttachIsRecognisedAsUnsupported(file: String, name: String) throws {
        let format = try #require(RichPushMediaFormat.sniff(try Data(contentsOf: Fixtures.media(file))))
        #expect(format.name == name)
        #expect(!format.isAttachable)
    }

    @Test func htmlAndEmptyBodiesAreNotMedia() throws {
        #expect(RichPushMediaFormat.sniff(try Data(contentsOf: Fixtures.media("notfound.html"))) == nil)
        #expect(RichPushMediaFormat.sniff(Data()) == nil)
        #expect(RichPushMediaFormat.sniff(Data("{\"error\":\"not found\"}".utf8)) == nil)
        #expect(RichPushMediaFormat.sniff(Data("#EXTM3U\n#EXT-X-VERSION:3\n".utf8)) == .hlsPlaylist)
    }
}
