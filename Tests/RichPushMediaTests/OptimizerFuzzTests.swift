import Foundation
import RichPushCore
import RichPushMedia
import RichPushTestSupport
import Testing

/// Fuzzes the optimiser through `MediaWorkerPool`, as `richpush serve` runs it, for a bounded time
/// (`RICHPUSH_FUZZ_SECONDS`, default 45 s): a corpus libvips and ImageMagick write at test time
/// (the formats the optimiser converts, and their odd variants: CMYK and progressive JPEG,
/// palette and 16-bit interlaced PNG, interlaced GIF, RLE BMP, LZW/JPEG/16-bit TIFF, lossless and
/// animated WebP, HEIC, AVIF, JPEG XL, SVG), mutated deterministically (seeded: bit flips,
/// interesting bytes, cuts, repeated slices, huge declared sizes). Every conversion must end with
/// a copy or a `MediaOptimizeError` (a worker that dies is a refusal, never a crash of this
/// process), every worker report its peak memory under its 1 GiB address space (docs/limits.md:
/// the bound for hostile content), and the pool still convert a good file at the end.
@Suite("Optimiser fuzz through the worker pool")
struct OptimizerFuzzTests {
    /// The peak resident memory a conversion of hostile content may reach: the worker's address
    /// space (docs/limits.md, "Media conversions"; mutated files peaked at 451 MB, a noise JPEG
    /// at up to 836 MB).
    static let peakBound = 1 << 30

    static var seconds: Double {
        ProcessInfo.processInfo.environment["RICHPUSH_FUZZ_SECONDS"].flatMap(Double.init).map { min(max($0, 1), 60) } ?? 45
    }

    /// The seeded generator (SplitMix64), so a failure can be replayed from its seed.
    typealias SplitMix = SeededGenerator

    /// The corpus: name → bytes, written by libvips and ImageMagick from the photo fixture.
    static func corpus(in folder: URL) async throws -> [(String, Data)] {
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let source = path("source.png")
        var made: [String] = []
        func run(_ tool: String, _ arguments: [String], _ output: String) async throws {
            let r = try await ChildProcess(tool, arguments).run(timeout: 120)
            if r.status == 0, FileManager.default.fileExists(atPath: path(output)) { made.append(output) }
        }
        // 160 × 107: small enough that a round is quick, big enough for every encoder's tools.
        try await run("vips", ["thumbnail", Fixtures.media("photo.jpg").path, source, "160"], "source.png")
        let vips: [([String], String)] = [
            (["jpegsave", source, path("baseline.jpg")], "baseline.jpg"),
            (["jpegsave", source, path("progressive.jpg"), "--interlace"], "progressive.jpg"),
            (["copy", source, path("interlaced.png") + "[interlace]"], "interlaced.png"),
            (["gifsave", source, path("image.gif")], "image.gif"),
            (["webpsave", source, path("lossy.webp")], "lossy.webp"),
            (["webpsave", source, path("lossless.webp"), "--lossless"], "lossless.webp"),
            (["heifsave", source, path("image.avif"), "--compression", "av1"], "image.avif"),
            (["heifsave", source, path("image.heic"), "--compression", "hevc"], "image.heic"),
            (["jxlsave", source, path("image.jxl")], "image.jxl"),
            (["tiffsave", source, path("strip.tiff")], "strip.tiff"),
            (["tiffsave", source, path("tiled.tiff"), "--tile", "--compression", "deflate"], "tiled.tiff"),
        ]
        for (arguments, output) in vips { try await run("vips", arguments, output) }
        let magick: [([String], String)] = [
            ([source, "-colorspace", "CMYK", path("cmyk.jpg")], "cmyk.jpg"),
            ([source, "-type", "Palette", "png8:" + path("palette.png")], "palette.png"),
            ([source, "-depth", "16", "-interlace", "PNG", path("deep.png")], "deep.png"),
            ([source, "-interlace", "GIF", path("interlaced.gif")], "interlaced.gif"),
            ([source, "-compress", "RLE", "bmp3:" + path("rle.bmp")], "rle.bmp"),
            ([source, "bmp:" + path("plain.bmp")], "plain.bmp"),
            ([source, "-compress", "lzw", path("lzw.tiff")], "lzw.tiff"),
            ([source, "-compress", "jpeg", path("jpeg.tiff")], "jpeg.tiff"),
            ([source, "-depth", "16", path("deep.tiff")], "deep.tiff"),
            ([source, source, "-loop", "0", path("animated.gif")], "animated.gif"),
        ]
        for (arguments, output) in magick { try await run("convert", arguments, output) }
        try await run("vips", ["copy", path("animated.gif") + "[n=-1]", path("animated.webp")], "animated.webp")
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"><defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient><filter id="b"><feGaussianBlur stdDeviation="2"/></filter></defs><rect width="120" height="80" fill="url(#g)" filter="url(#b)"/><circle cx="60" cy="40" r="30" fill="#0f0" opacity="0.5"/><text x="10" y="70">RichPush</text></svg>
            """
        try Data(svg.utf8).write(to: folder.appendingPathComponent("drawing.svg"))
        made.append("drawing.svg")
        return try made.filter { $0 != "source.png" }.map { ($0, try Data(contentsOf: folder.appendingPathComponent($0))) }
    }

    /// `data` mutated 1–4 times.
    static func mutate(_ data: Data, _ random: inout SplitMix) -> Data {
        var bytes = [UInt8](data)
        guard !bytes.isEmpty else { return data }
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            switch Int.random(in: 0..<6, using: &random) {
            case 0:  // flip bits
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let i = Int.random(in: 0..<bytes.count, using: &random)
                    bytes[i] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
                }
            case 1:  // interesting bytes
                let i = Int.random(in: 0..<bytes.count, using: &random)
                bytes[i] = [0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE].randomElement(using: &random) ?? 0
            case 2:  // cut short
                bytes = Array(bytes.prefix(Int.random(in: 1...bytes.count, using: &random)))
            case 3:  // a slice repeated
                let start = Int.random(in: 0..<bytes.count, using: &random)
                let length = Int.random(in: 1...min(256, bytes.count - start), using: &random)
                let at = Int.random(in: 0...bytes.count, using: &random)
                bytes.insert(contentsOf: bytes[start..<(start + length)], at: at)
            case 4:  // a huge declared size near the start (where headers keep width and height)
                let i = Int.random(in: 0..<min(64, bytes.count), using: &random)
                for k in 0..<4 where i + k < bytes.count { bytes[i + k] = k == 0 ? 0x7F : 0xFF }
            default:  // a range zeroed
                let start = Int.random(in: 0..<bytes.count, using: &random)
                let length = Int.random(in: 1...min(64, bytes.count - start), using: &random)
                for k in start..<(start + length) { bytes[k] = 0 }
            }
        }
        return Data(bytes)
    }

    @Test("mutated images of every format: each a copy or a refusal, no crash of this process, every worker under its 1 GiB")
    func fuzz() async throws {
        let folder = try Fixtures.temporaryDirectory("optimizer-fuzz")
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpus = try await Self.corpus(in: folder)
        #expect(corpus.count >= 20, "the encoders wrote only \(corpus.map(\.0))")
        var optimizer = MediaOptimizer.Settings()
        optimizer.allowsSVG = true
        optimizer.allowsImageMagick = true
        var settings = MediaWorkerPool.Settings()
        settings.command = [Fixtures.richpushBinary.path, MediaWorker.argument]
        settings.timeout = .seconds(5)
        let pool = MediaWorkerPool(optimizer: optimizer, settings: settings)
        defer { pool.shutdown() }

        let seed = UInt64(ProcessInfo.processInfo.environment["RICHPUSH_FUZZ_SEED"] ?? "") ?? 28
        var random = SplitMix(state: seed)
        let deadline = ContinuousClock.now + .milliseconds(Int(Self.seconds * 1000))
        var outcomes: [String: Int] = [:]
        var round = 0
        while ContinuousClock.now < deadline {
            // Two at a time, as the pool runs them.
            var inputs: [(String, URL, URL)] = []
            for k in 0..<2 {
                let (name, data) = corpus[Int.random(in: 0..<corpus.count, using: &random)]
                let input = folder.appendingPathComponent("in-\(k)-\(name)")
                try Self.mutate(data, &random).write(to: input)
                inputs.append((name, input, folder.appendingPathComponent("out-\(k).jpg")))
            }
            let results = await withTaskGroup(of: (String, Result<MediaWorkerPool.Conversion, MediaOptimizeError>).self) { group in
                for (name, input, output) in inputs {
                    group.addTask {
                        do throws(MediaOptimizeError) {
                            return (name, .success(try await pool.optimize(input, to: output)))
                        } catch {
                            return (name, .failure(error))
                        }
                    }
                }
                var all: [(String, Result<MediaWorkerPool.Conversion, MediaOptimizeError>)] = []
                for await r in group { all.append(r) }
                return all
            }
            for (name, result) in results {
                switch result {
                case .success(let made):
                    outcomes[made.result.action.rawValue, default: 0] += 1
                    #expect(made.workerPeakBytes < Self.peakBound, "round \(round) (seed \(seed)), \(name): peak \(made.workerPeakBytes)")
                    if made.result.action == .converted { #expect(made.result.outputBytes <= optimizer.maximumBytes) }
                case .failure(let error):
                    outcomes[error.code.rawValue, default: 0] += 1
                    #expect(!error.message.isEmpty)
                }
            }
            round += 1
        }
        print("optimizer fuzz: \(round * 2) conversions in \(Self.seconds) s (seed \(seed)): \(outcomes.sorted { $0.key < $1.key }); pool \(pool.statistics)")
        #expect(round > 0)
        #expect(pool.statistics.peakBytes < Self.peakBound)
        // Still converting: a good file after everything.
        let good = try await pool.optimize(Fixtures.media("photo.webp"), to: folder.appendingPathComponent("good.jpg"))
        #expect(good.result.action == .converted)
    }
}
