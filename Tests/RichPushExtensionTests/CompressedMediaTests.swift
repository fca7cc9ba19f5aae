import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// Media is asked for uncompressed (`Accept-Encoding: identity`) by both transports, and a server
/// that compresses anyway is refused at the head, before any decoded byte is counted or written:
/// the size limits count the bytes received.
///
/// A media server of its own: making a bomb holds its Python process for a moment, which must not
/// delay the other suites' timed requests; the helper processes run at a lower priority (`nice`).
@Suite("Media without Content-Encoding")
struct CompressedMediaTests {
    /// The depth helper at a lower CPU priority than the test process.
    static func helper(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess("nice", ["-n", "10", DepthSupport.helperBinary.path] + arguments).run(timeout: 120)
    }

    static func fetch(_ path: String, _ transport: TransportKind) async throws -> Result<RichPushDownloadedMedia, FetchFailure> {
        let server = try await MediaServer.get("compressed")
        let folder = try Fixtures.temporaryDirectory("richpush-compressed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fetcher = MediaFetcher(transport: transport.make(), allowedHTTPHosts: ["127.0.0.1"])
        let url = try #require(URL(string: server.url(path)))
        do throws(FetchFailure) {
            let media = try await fetcher.fetch(url, into: folder, deadline: .now + .seconds(30))
            return .success(media)
        } catch {
            #expect(filesLeft(in: folder).isEmpty)
            return .failure(error)
        }
    }

    /// The server answers 406 unless the request says exactly `Accept-Encoding: identity`.
    @Test(arguments: TransportKind.allCases)
    func bothTransportsAskForIdentity(_ transport: TransportKind) async throws {
        let media = try await Self.fetch("/identity-only/photo.jpg", transport).get()
        #expect(media.bytes == 89_696)
        #expect(media.format == .jpeg)
    }

    @Test(arguments: TransportKind.allCases)
    func aCompressedAnswerIsRefusedWhateverItHolds(_ transport: TransportKind) async throws {
        guard case .failure(let failure) = try await Self.fetch("/gzip-photo", transport) else {
            Issue.record("a gzip-encoded photo was accepted")
            return
        }
        #expect(failure.reason == .notMedia)
        #expect(failure.message.contains("Content-Encoding: gzip"))
    }

    /// A bomb: 0.5 MB that inflate to 512 MB. libcurl (the Linux transport) never decodes, so
    /// the helper process stays at its usual size (~32 MB here).
    @Test func aGzipBombCostsCurlNothing() async throws {
        let server = try await MediaServer.get("compressed")
        let folder = try Fixtures.temporaryDirectory("richpush-bomb")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await Self.helper(["fetch", "curl", server.url("/gzip-bomb?mb=512"), folder.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("reason=not_media bytes=0"), "\(run.stdout)")
        let peak = try #require(Self.peak(run.stdout))
        #expect(peak < 128 * 1_048_576, "peak \(peak) bytes")
    }

    /// Linux's URLSession (FoundationNetworking) decodes whatever the server sends and hands the
    /// delegate every decoded chunk, so its memory is not RichPush's to bound (see
    /// `URLSessionMediaTransport`); what RichPush controls holds: the answer is refused at its
    /// head, nothing decoded reaches a file or a limit. (A 64 MB bomb: the same refusal, without
    /// making the test machine decode a gigabyte.)
    @Test func aGzipBombIsRefusedThroughLinuxURLSession() async throws {
        let server = try await MediaServer.get("compressed")
        let folder = try Fixtures.temporaryDirectory("richpush-bomb")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await Self.helper(["fetch", "urlsession", server.url("/gzip-bomb?mb=64"), folder.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("reason=not_media bytes=0"), "\(run.stdout)")
        #expect(run.stdout.contains("Content-Encoding: gzip"))
        #expect(filesLeft(in: folder).isEmpty)
    }

    static func peak(_ output: String) -> Int? {
        output.split(separator: " ").first { $0.hasPrefix("peak=") }.flatMap {
            Int($0.dropFirst("peak=".count).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
