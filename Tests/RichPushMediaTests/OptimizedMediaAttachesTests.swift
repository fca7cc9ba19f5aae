import Foundation
import RichPushCore
@_spi(RichPushInternal) import RichPushExtension
import RichPushMedia
import RichPushTestSupport
import Testing

/// After `richpush media optimize`, the extension pipeline (`richpush simulate`) attaches what it
/// refused before: a JPEG within the 300 KB budget.
@Suite("Optimised media attaches", .serialized)
struct OptimizedMediaAttachesTests {
    static let convertible = [
        "photo.webp", "anim.webp", "photo.heic", "photo.avif", "photo.tiff", "icon.svg", "photo.jxl", "big.jpg", "huge.png",
    ]

    static var probeSettings: MediaProbe.Settings {
        var settings = MediaProbe.Settings()
        settings.allowedHTTPHosts = ["127.0.0.1"]
        settings.addressPolicy = MediaAddressPolicy(allowedHosts: ["127.0.0.1"])
        return settings
    }

    @Test("refused, optimised from its URL, then media_attached as a JPEG ≤ 300 KB", arguments: convertible)
    func optimizedAttaches(_ name: String) async throws {
        let bench = try await MediaWorkbench.shared()
        let before = try await Simulation.run(bench.url("f/\(name)"))
        #expect(before.outcome != "media_attached", "\(name) attached before optimisation: \(before.raw)")

        let scratch = try Fixtures.temporaryDirectory("richpush-optimize-source")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let fetched = await MediaProbe(settings: Self.probeSettings).fetchOriginal(bench.url("f/\(name)"), into: scratch, byteLimit: 50_000_000)
        let media = try #require(fetched.media, "fetch failed: \(fetched.result.line)")
        let output = bench.file("opt/\(name).jpg")
        // SVG is rasterised only when allowed (librsvg on hostile input; issue 28).
        var settings = MediaOptimizer.Settings()
        settings.allowsSVG = name.hasSuffix(".svg")
        let result = try MediaOptimizer(settings: settings).optimize(media.file, to: output)
        #expect(result.action == .converted)
        #expect(result.outputFormat == .jpeg)
        #expect(result.outputBytes <= 300 * 1024)
        #expect(max(result.outputSize?.width ?? 0, result.outputSize?.height ?? 0) <= 2048)

        let after = try await Simulation.run(bench.url("f/opt/\(name).jpg"))
        #expect(after.outcome == "media_attached", "\(after.raw)")
        #expect(after.reason == nil)
        let attached = try #require(after.attachments.first)
        let bytes = try Data(contentsOf: attached)
        #expect(RichPushMediaFormat.sniff(bytes) == .jpeg)
        #expect(bytes.count <= 300 * 1024)
        #expect(bytes == (try Data(contentsOf: output)))
    }

    @Test("the JPEG is sRGB, upright (EXIF orientation applied) and without metadata")
    func orientationAndMetadata() async throws {
        let bench = try await MediaWorkbench.shared()
        // A 300×100 landscape stored with EXIF orientation 6 (rotate 90° clockwise to show).
        let rotated = bench.file("rotated.jpg")
        let made = try await ChildProcess(
            "vips", ["copy", bench.file("photo.jpg").path + "[autorotate=false]", rotated.path + "[Q=90]"]
        ).run(timeout: 60)
        #expect(made.status == 0)
        let tagged = try await ChildProcess(
            "python3", ["-c", Self.setOrientation, rotated.path]
        ).run(timeout: 30)
        #expect(tagged.status == 0, "\(tagged.stderr)")
        var settings = MediaOptimizer.Settings()
        settings.maximumSide = 300
        let output = bench.file("opt/rotated-out.jpg")
        let result = try MediaOptimizer(settings: settings).optimize(rotated, to: output)
        #expect(result.action == .converted)
        // 900×600 shown rotated is 600×900: fitted into 300 px, 200×300.
        #expect(result.outputSize == .init(width: 200, height: 300))
        let data = try Data(contentsOf: output)
        #expect(data.range(of: Data("Exif".utf8)) == nil, "metadata was kept")
    }

    /// Inserts an APP1 Exif segment with Orientation = 6 after SOI (a real camera's tag layout).
    static let setOrientation = """
        import struct, sys
        p = sys.argv[1]
        data = open(p, 'rb').read()
        ifd = struct.pack('>H', 1) + struct.pack('>HHII', 0x0112, 3, 1, 6 << 16) + struct.pack('>I', 0)
        tiff = b'MM' + struct.pack('>HI', 42, 8) + ifd
        app1 = b'Exif\\x00\\x00' + tiff
        seg = b'\\xff\\xe1' + struct.pack('>H', len(app1) + 2) + app1
        open(p, 'wb').write(data[:2] + seg + data[2:])
        """

    @Test("kept as they are: GIF and PNG within budget, a small JPEG, a video")
    func keptAsTheyAre() async throws {
        let bench = try await MediaWorkbench.shared()
        for name in ["logo.png", "anim.gif", "photo.jpg", "clip.mp4"] {
            let output = bench.file("opt/kept-\(name)")
            let result = try MediaOptimizer().optimize(bench.file(name), to: output)
            #expect(result.action == .kept, "\(name)")
            #expect(try Data(contentsOf: output) == Data(contentsOf: bench.file(name)), "\(name) changed")
        }
    }

    @Test("refused with the reason: pixel flood, cut-short JPEGs (small and 6 of 12 MB), video over 50 MB, BMP without ImageMagick, HTML")
    func refusals() async throws {
        let bench = try await MediaWorkbench.shared()
        let expected: [(String, MediaOptimizeError.Code)] = [
            ("flood.png", .tooLarge), ("truncated.jpg", .corruptMedia), ("big-truncated.jpg", .corruptMedia), ("huge.mp4", .tooLarge),
            ("tiny.bmp", .unsupportedFormat), ("icon.svg", .unsupportedFormat),
        ]
        for (name, code) in expected {
            let output = bench.file("opt/refused-\(name)")
            #expect(throws: MediaOptimizeError.self, "\(name)") { try MediaOptimizer().optimize(bench.file(name), to: output) }
            do {
                _ = try MediaOptimizer().optimize(bench.file(name), to: output)
            } catch {
                #expect(error.code == code, "\(name): \(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: output.path), "\(name): a copy was written")
        }
        let html = bench.file("page.html")
        try Data("<!doctype html><p>hi".utf8).write(to: html)
        #expect(throws: MediaOptimizeError(.notMedia, "page.html is not an image, video or sound RichPush knows (no known magic bytes)")) {
            try MediaOptimizer().optimize(html, to: bench.file("opt/page.jpg"))
        }
    }

    @Test("a refusal that a setting lifts names the setting (MediaOptimizer.Settings), no command-line option")
    func refusalsNameTheSetting() async throws {
        let bench = try await MediaWorkbench.shared()
        for (name, setting) in [("tiny.bmp", "allowsImageMagick"), ("flood.png", "maximumInputPixels"), ("icon.svg", "allowsSVG")] {
            do {
                _ = try MediaOptimizer().optimize(bench.file(name), to: bench.file("opt/setting-\(name)"))
                Issue.record("\(name) was optimised")
            } catch {
                #expect(error.setting == setting, "\(name): \(error)")
                #expect(!error.message.contains("--"), "\(name): \(error.message)")
            }
        }
    }

    @Test("richpush media optimize: BMP through ImageMagick only with --allow-imagemagick; exit 1 with the reason otherwise")
    func bmpCommandLine() async throws {
        let bench = try await MediaWorkbench.shared()
        let output = bench.file("opt/tiny-bmp.jpg")
        let refused = try await ChildProcess(
            Fixtures.richpushBinary.path, ["media", "optimize", bench.file("tiny.bmp").path, "--output", output.path]
        ).run(timeout: 60)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("unsupported_format: BMP is read only through ImageMagick"))
        #expect(refused.stderr.contains("or allow the ImageMagick loader (--allow-imagemagick)"), "the command line names its option: \(refused.stderr)")
        let allowed = try await ChildProcess(
            Fixtures.richpushBinary.path, ["media", "optimize", bench.file("tiny.bmp").path, "--output", output.path, "--allow-imagemagick", "--json"]
        ).run(timeout: 60)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(allowed.stdout.utf8)) as? [String: Any])
        #expect(json["action"] as? String == "converted")
        #expect(json["output_format"] as? String == "JPEG")
        #expect(RichPushMediaFormat.sniff(try Data(contentsOf: output)) == .jpeg)
    }
}
