import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@Suite struct MediaFormatTests {
    @Test(arguments: [
        ("photo.jpg", "public.jpeg"), ("progressive.jpg", "public.jpeg"), ("logo.png", "public.png"),
        ("anim.gif", "com.compuserve.gif"), ("chime.mp3", "public.mp3"), ("chime.m4a", "public.mpeg-4-audio"),
        ("chime.wav", "com.microsoft.waveform-audio"), ("chime.aiff", "public.aiff-audio"),
        ("clip.mp4", "public.mpeg-4"), ("clip.mov", "com.apple.quicktime-movie"),
    ])
    func attachableFixturesAreRecognisedByTheirBytes(file: String, uti: String) throws {
        let bytes = try Data(contentsOf: Fixtures.media(file))
        let format = try #require(MediaFormat.sniff(bytes))
        #expect(format.uniformTypeIdentifier == uti)
        #expect(format.isAttachable)
    }

    @Test(arguments: [("photo.webp", "WebP"), ("photo.heic", "HEIC"), ("icon.svg", "SVG"), ("tiny.bmp", "BMP")])
    func knownMediaThatIOSDoesNotAttachIsRecognisedAsUnsupported(file: String, name: String) throws {
        let format = try #require(MediaFormat.sniff(try Data(contentsOf: Fixtures.media(file))))
        #expect(format.name == name)
        #expect(!format.isAttachable)
    }

    @Test func htmlAndEmptyBodiesAreNotMedia() throws {
        #expect(MediaFormat.sniff(try Data(contentsOf: Fixtures.media("notfound.html"))) == nil)
        #expect(MediaFormat.sniff(Data()) == nil)
        #expect(MediaFormat.sniff(Data("{\"error\":\"not found\"}".utf8)) == nil)
        #expect(MediaFormat.sniff(Data("#EXTM3U\n#EXT-X-VERSION:3\n".utf8)) == .hlsPlaylist)
    }
}
