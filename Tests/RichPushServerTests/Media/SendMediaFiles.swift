import Foundation
import RichPushTestSupport

/// The send-time media check's world: real files (the fixtures, and a 3150 × 2100 JPEG made by
/// libvips' `vips` at test time, over the 300 KB and 2048 px budgets) served by
/// `Tests/Support/probe_media_server.py` over https on 127.0.0.1 (`/f/NAME`, `/missing.jpg` 404,
/// `/redirect?to=URL`, `/log`), its certificate from a throwaway CA (`caFile`, for
/// `serve --media-ca-file`). One per test process; the server exits with the process.
final class SendMediaFiles: Sendable {
    let folder: URL
    let port: Int
    /// The PEM of the throwaway CA that issued the server's certificate.
    let caFile: URL
    private let server: ChildProcess

    private init(folder: URL, port: Int, caFile: URL, server: ChildProcess) {
        self.folder = folder
        self.port = port
        self.caFile = caFile
        self.server = server
    }

    private static let made = Task { () -> Result<SendMediaFiles, TestSupportError> in
        do { return .success(try await SendMediaFiles.make()) } catch {
            return .failure(TestSupportError("send media files: \(error)"))
        }
    }

    /// The shared files and server (made by the first caller).
    static func shared() async throws -> SendMediaFiles {
        try await made.value.get()
    }

    /// `https://127.0.0.1:PORT/` + `path`.
    func url(_ path: String) -> String {
        "https://127.0.0.1:\(port)/" + path
    }

    /// Every path the server was asked for so far.
    func paths() async throws -> [String] {
        let run = try await ChildProcess("curl", ["-s", "--max-time", "5", "--cacert", caFile.path, url("log")]).run(timeout: 10)
        guard let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] else {
            throw TestSupportError("the server's /log is not JSON: \(run.stdout)")
        }
        return object["paths"] as? [String] ?? []
    }

    private static func make() async throws -> SendMediaFiles {
        let folder = try Fixtures.temporaryDirectory("richpush-send-media")
        for name in ["photo.jpg", "photo.webp", "logo.png", "photo.heic"] {
            try FileManager.default.copyItem(at: Fixtures.media(name), to: folder.appendingPathComponent(name))
        }
        // 3150 × 2100 at Q95: an attachable JPEG, but over both budgets (300 KB, 2048 px).
        let vips = try await ChildProcess(
            "vips", ["resize", folder.appendingPathComponent("photo.jpg").path, folder.appendingPathComponent("large.jpg").path + "[Q=95]", "3.5"]
        ).run(timeout: 120)
        guard vips.status == 0 else { throw TestSupportError("vips resize failed: \(vips.stderr)") }
        let caFile = folder.appendingPathComponent("ca.pem")
        let server = ChildProcess(
            "python3", [Fixtures.supportDirectory.appendingPathComponent("probe_media_server.py").path, folder.path, "--tls-ca-out", caFile.path])
        let port = try await server.start(waitingForPort: 30)
        return SendMediaFiles(folder: folder, port: port, caFile: caFile, server: server)
    }
}
