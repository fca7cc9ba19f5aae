import Foundation
import RichPushCore
import RichPushMedia
import RichPushTestSupport
import Testing

/// The optimiser's bounds before anything is decoded (issue 28): an SVG's rendered and embedded
/// pixels, and the decoders that hold a whole image (progressive JPEG, interlaced PNG, GIF, …)
/// against `maximumDecodeBytes`, on files made by libvips at test time.
@Suite("Decode bounds: SVG pixels and whole-image decoders")
struct DecodeBoundsTests {
    static var svgOn: MediaOptimizer.Settings {
        var settings = MediaOptimizer.Settings()
        settings.allowsSVG = true
        return settings
    }

    static func vips(_ arguments: [String]) async throws {
        let run = try await ChildProcess("vips", arguments).run(timeout: 300)
        guard run.status == 0 else { throw TestSupportError("vips \(arguments.joined(separator: " ")): \(run.stderr)") }
    }

    static func refusal(_ settings: MediaOptimizer.Settings, _ input: URL, in folder: URL) -> MediaOptimizeError? {
        do {
            _ = try MediaOptimizer(settings: settings).optimize(input, to: folder.appendingPathComponent("out.jpg"))
            return nil
        } catch {
            return error
        }
    }

    @Test("an SVG embedding a 12000×12000 PNG (561 KB) is too_large before rendering, however data: is spelled")
    func embeddedPixels() async throws {
        let folder = try Fixtures.temporaryDirectory("svg-embedded")
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("big.png")
        try await Self.vips(["black", png.path, "12000", "12000", "--bands", "3"])
        let picture = try Data(contentsOf: png)
        for spelled in [false, true] {
            let svg = folder.appendingPathComponent("embeds-\(spelled).svg")
            try HostileMedia.embeddingSVG(picture, type: "image/png", spelledWithReferences: spelled).write(to: svg)
            let error = try #require(Self.refusal(Self.svgOn, svg, in: folder), "rendered")
            #expect(error.code == .tooLarge, "\(error)")
            #expect(error.message.contains("embeds 1 picture(s) of 144000000 pixels"), "\(error.message)")
            #expect(error.setting == "maximumInputPixels")
        }
        // A small embedded picture is rendered, and counted.
        let small = folder.appendingPathComponent("small.png")
        try await Self.vips(["black", small.path, "50", "50", "--bands", "3"])
        let svg = folder.appendingPathComponent("small.svg")
        try HostileMedia.embeddingSVG(try Data(contentsOf: small), type: "image/png").write(to: svg)
        let made = try MediaOptimizer(settings: Self.svgOn).optimize(svg, to: folder.appendingPathComponent("small.jpg"))
        #expect(made.action == .converted)
    }

    @Test("refused before rendering: XML entities, an SVG inside an SVG, a picture gdk-pixbuf's lesser loaders would read")
    func refusedDocuments() async throws {
        let folder = try Fixtures.temporaryDirectory("svg-refused")
        defer { try? FileManager.default.removeItem(at: folder) }
        let laughs = """
            <?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&b;</text></svg>
            """
        let inner = HostileMedia.convolveSVG()
        let bmp = Data([0x42, 0x4D] + [UInt8](repeating: 0, count: 60))
        let cases: [(String, Data, String)] = [
            ("entities.svg", Data(laughs.utf8), "declares XML entities"),
            ("nested.svg", HostileMedia.embeddingSVG(inner, type: "image/svg+xml"), "embeds a SVG picture"),
            ("bmp.svg", HostileMedia.embeddingSVG(bmp, type: "image/bmp"), "embeds a BMP picture"),
        ]
        for (name, data, says) in cases {
            let file = folder.appendingPathComponent(name)
            try data.write(to: file)
            let error = try #require(Self.refusal(Self.svgOn, file, in: folder), "\(name) was rendered")
            #expect(error.code == .unsupportedFormat, "\(name): \(error)")
            #expect(error.message.contains(says), "\(name): \(error.message)")
        }
    }

    @Test("an SVG is rendered from memory: a file it names beside it is never loaded")
    func noExternalFiles() async throws {
        let folder = try Fixtures.temporaryDirectory("svg-external")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A red picture next to the SVG, named relatively and absolutely; the canvas is white.
        let red = folder.appendingPathComponent("red.png")
        try await Self.vips(["black", folder.appendingPathComponent("k.v").path, "100", "100", "--bands", "3"])
        try await Self.vips(["linear", folder.appendingPathComponent("k.v").path, folder.appendingPathComponent("r.v").path, "1 1 1", "255 0 0"])
        try await Self.vips(["cast", folder.appendingPathComponent("r.v").path, red.path, "uchar"])
        let svg = folder.appendingPathComponent("external.svg")
        try Data(
            """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100"><rect width="100" height="100" fill="white"/><image xlink:href="red.png" width="50" height="100"/><image xlink:href="file://\(red.path)" x="50" width="50" height="100"/></svg>
            """.utf8
        ).write(to: svg)
        let output = folder.appendingPathComponent("external.jpg")
        let made = try MediaOptimizer(settings: Self.svgOn).optimize(svg, to: output)
        #expect(made.action == .converted)
        // Mean of the green band: 255 for a white canvas, about 0 where red was drawn.
        let stats = try await ChildProcess("vips", ["stats", output.path, folder.appendingPathComponent("s.csv").path]).run(timeout: 60)
        #expect(stats.status == 0, "\(stats.stderr)")
        let csv = try String(contentsOf: folder.appendingPathComponent("s.csv"), encoding: .utf8)
        let rows = csv.split(separator: "\n").map { $0.split(whereSeparator: { $0 == "\t" || $0 == "," || $0 == " " }) }
        // Row 2 is band 0 (red), row 3 band 1 (green); column 4 the mean.
        let greenMean = try #require(rows.count > 2 && rows[2].count > 4 ? Double(rows[2][4]) : nil, "\(csv)")
        #expect(greenMean > 250, "a named file was drawn (green mean \(greenMean))")
    }

    @Test(
        "whole-image decoders against maximumDecodeBytes: a progressive JPEG, an interlaced 16-bit PNG and a GIF are refused before decoding; a baseline JPEG of the same size converts"
    )
    func wholeImageDecoders() async throws {
        let folder = try Fixtures.temporaryDirectory("decode-bounds")
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        try await Self.vips(["black", path("k.v"), "8000", "8000", "--bands", "3"])
        try await Self.vips(["jpegsave", path("k.v"), path("progressive.jpg"), "--interlace"])
        try await Self.vips(["jpegsave", path("k.v"), path("baseline.jpg")])
        try await Self.vips(["black", path("k4.v"), "6000", "6000", "--bands", "4"])
        try await Self.vips(["cast", path("k4.v"), path("k16.v"), "ushort"])
        try await Self.vips(["copy", path("k16.v"), path("k16i.v"), "--interpretation", "rgb16"])
        try await Self.vips(["copy", path("k16i.v"), path("interlaced.png") + "[interlace]"])
        try await Self.vips(["black", path("g.v"), "7000", "7000", "--bands", "3"])
        try await Self.vips(["gifsave", path("g.v"), path("big.gif")])
        let expected: [(String, String)] = [
            ("progressive.jpg", "a progressive JPEG is decoded whole (about 8 bytes a pixel): 8000×8000 pixels would hold about 512 MB"),
            ("interlaced.png", "an interlaced PNG is decoded whole (about 11.2 bytes a pixel): 6000×6000 pixels would hold about 404 MB"),
            ("big.gif", "a GIF is decoded whole (about 9 bytes a pixel): 7000×7000 pixels would hold about 441 MB"),
        ]
        for (name, says) in expected {
            let error = try #require(Self.refusal(MediaOptimizer.Settings(), folder.appendingPathComponent(name), in: folder), "\(name) converted")
            #expect(error.code == .tooLarge, "\(name): \(error)")
            #expect(error.message.contains(says), "\(name): \(error.message)")
            #expect(error.setting == "maximumDecodeBytes")
        }
        let made = try MediaOptimizer().optimize(folder.appendingPathComponent("baseline.jpg"), to: folder.appendingPathComponent("baseline-out.jpg"))
        #expect(made.action == .converted)
    }
}
