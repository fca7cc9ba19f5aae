import Foundation
import RichPushCore
import RichPushTestSupport

/// The media-probe tests' world: a folder of files made by real encoders (fixtures, and libvips'
/// `vips` at test time), served by `Tests/Support/probe_media_server.py` on 127.0.0.1.
///
/// One per test process (`MediaWorkbench.shared()`); the server exits with the process.
final class MediaWorkbench: Sendable {
    let folder: URL
    let port: Int
    private let server: ChildProcess

    private init(folder: URL, port: Int, server: ChildProcess) {
        self.folder = folder
        self.port = port
        self.server = server
    }

    private static let made = Task { () -> Result<MediaWorkbench, TestSupportError> in
        do { return .success(try await MediaWorkbench.make()) } catch {
            return .failure(TestSupportError("media workbench: \(error)"))
        }
    }

    /// The shared workbench (made by the first caller).
    static func shared() async throws -> MediaWorkbench {
        try await made.value.get()
    }

    /// `http://127.0.0.1:PORT/` + `path`.
    func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)/" + path
    }

    /// A file of the folder.
    func file(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }

    /// What the server has seen: every path requested and the Authorization headers by file.
    func log() async throws -> (paths: [String], auth: [String: [String]]) {
        let run = try await ChildProcess("curl", ["-s", "--max-time", "5", url("log")]).run(timeout: 10)
        guard let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] else {
            throw TestSupportError("the server's /log is not JSON: \(run.stdout)")
        }
        return (object["paths"] as? [String] ?? [], object["auth"] as? [String: [String]] ?? [:])
    }

    private static func make() async throws -> MediaWorkbench {
        let folder = try Fixtures.temporaryDirectory("richpush-media-probe")
        for name in ["photo.jpg", "photo.webp", "photo.heic", "logo.png", "anim.gif", "icon.svg", "tiny.bmp", "clip.mp4", "chime.mp3"] {
            try FileManager.default.copyItem(at: Fixtures.media(name), to: folder.appendingPathComponent(name))
        }
        func vips(_ arguments: [String]) async throws {
            let run = try await ChildProcess("vips", arguments).run(timeout: 120)
            guard run.status == 0 else { throw TestSupportError("vips \(arguments.joined(separator: " ")) failed: \(run.stderr)") }
        }
        let f = { (name: String) in folder.appendingPathComponent(name).path }
        // Real encoders: libheif's AOM (AVIF), libtiff, libjxl, libwebp (animated, from the GIF).
        try await vips(["heifsave", f("photo.jpg"), f("photo.avif"), "--compression", "av1"])
        try await vips(["copy", f("photo.jpg"), f("photo.tiff")])
        try await vips(["jxlsave", f("photo.jpg"), f("photo.jxl")])
        try await vips(["copy", f("anim.gif") + "[n=-1]", f("anim.webp")])
        // A 12 MB JPEG (4300×2900 of noise at Q97: over Apple's 10 MB image limit).
        try await vips(["gaussnoise", f("noise.v"), "4300", "2900", "--sigma", "40", "--mean", "128"])
        try await vips(["bandjoin", "\(f("noise.v")) \(f("noise.v")) \(f("noise.v"))", f("noise3.v")])
        try await vips(["cast", f("noise3.v"), f("noise3u.v"), "uchar"])
        try await vips(["jpegsave", f("noise3u.v"), f("big.jpg"), "--Q", "97"])
        for name in ["noise.v", "noise3.v", "noise3u.v"] { try? FileManager.default.removeItem(atPath: f(name)) }
        // The 12 MB JPEG cut at 6 MB: over the byte budget, so libvips (fail_on=error) decides.
        let big = try Data(contentsOf: folder.appendingPathComponent("big.jpg"))
        try big.prefix(6_000_000).write(to: folder.appendingPathComponent("big-truncated.jpg"))
        // A complete 9000×9000 PNG (81 MP: over the extension's pixel bound of 8192×8192).
        try await vips(["black", f("huge.png"), "9000", "9000", "--bands", "3"])
        // A 60000×60000 PNG in a few hundred bytes (a pixel flood).
        try PixelFlood.png(width: 60000, height: 60000).write(to: folder.appendingPathComponent("flood.png"))
        // A JPEG cut in half (an interrupted download).
        let photo = try Data(contentsOf: folder.appendingPathComponent("photo.jpg"))
        try photo.prefix(photo.count / 2).write(to: folder.appendingPathComponent("truncated.jpg"))
        // An MP4 over Apple's 50 MB video limit: the clip, then a sparse tail (never committed).
        let mp4 = folder.appendingPathComponent("huge.mp4")
        try FileManager.default.copyItem(at: folder.appendingPathComponent("clip.mp4"), to: mp4)
        let handle = try FileHandle(forWritingTo: mp4)
        try handle.truncate(atOffset: 52 * 1024 * 1024)
        try handle.close()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("opt"), withIntermediateDirectories: true)
        let server = ChildProcess("python3", [Fixtures.supportDirectory.appendingPathComponent("probe_media_server.py").path, folder.path])
        let port = try await server.start(waitingForPort: 30)
        return MediaWorkbench(folder: folder, port: port, server: server)
    }
}

/// PNG files that declare more pixels than they hold.
enum PixelFlood {
    /// A structurally complete PNG (valid CRCs, one small IDAT, IEND) declaring `width`×`height`
    /// RGB pixels; its IDAT holds one row's worth of zlib data, so it is a few hundred bytes.
    static func png(width: Int, height: Int) -> Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        func chunk(_ type: String, _ body: [UInt8]) {
            var length = UInt32(body.count).bigEndian
            out.append(Data(bytes: &length, count: 4))
            let typed = Array(type.utf8) + body
            out.append(contentsOf: typed)
            var crc = crc32(typed).bigEndian
            out.append(Data(bytes: &crc, count: 4))
        }
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0])
        // zlib header, one stored (uncompressed) block of 256 zero bytes, no final block: cut short.
        chunk("IDAT", [0x78, 0x01, 0x00, 0x00, 0x01, 0xFF, 0xFE] + [UInt8](repeating: 0, count: 256))
        chunk("IEND", [])
        return out
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
