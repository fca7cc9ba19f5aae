import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// One test per misbehaving media server, each run with both transports: the pipeline's rules sit
/// above the transport, so the outcome, the reason and the timing are the same with either.
@Suite("Misbehaving media servers, real sockets")
struct MisbehavingServerTests {
    /// The deadline of the tests about it (a server that drips or never answers): short, so they
    /// are quick; what they would take if it did not hold is 120 s and more.
    static let deadline = 3.0
    /// The deadline of every other test: long enough that a loaded machine never turns a redirect
    /// or a download into `timeout`.
    static let generousDeadline = 20.0

    /// Runs `path` on the local server and checks outcome, reason, delivery before the deadline,
    /// and that a failure leaves no file behind.
    @discardableResult
    func check(
        _ path: String, transport: TransportKind, outcome: RichPushOutcome, reason: RichPushReasonCode?,
        httpStatus: Int?? = nil, allowLoopback: Bool = true, deadline: Double = Self.generousDeadline
    ) async throws -> RichPushResult {
        let server = try await MediaServer.get("misbehaving")
        let configuration = try testConfiguration(deadline: deadline, allowLoopback: allowLoopback)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let (result, seconds, run) = await runTimed(mediaPayload(server.url(path)), configuration: configuration, transport: transport)
        #expect(result.outcome == outcome, "\(path): \(result.message)")
        #expect(result.reason == reason, "\(path): \(result.message)")
        if let httpStatus { #expect(result.httpStatus == httpStatus) }
        #expect(seconds < deadline + deliverySlack, "delivered after \(seconds) s")
        #expect(result.elapsedMs <= Int((deadline + deliverySlack) * 1000))
        await run.waitUntilSettled()
        if outcome != .mediaAttached {
            #expect(filesLeft(in: configuration.attachmentsDirectory).isEmpty)
        } else {
            #expect(filesLeft(in: configuration.attachmentsDirectory).count == 1)
        }
        return result
    }

    @Test("JPEG bytes at a URL without an extension attach as JPEG", arguments: TransportKind.allCases)
    func noExtension(_ t: TransportKind) async throws {
        let r = try await check("/noext", transport: t, outcome: .mediaAttached, reason: nil, httpStatus: 200)
        #expect(r.content.attachments.first?.type == "public.jpeg")
        #expect(r.content.attachments.first?.bytes == 89_696)
        #expect(r.content.attachments.first?.file.hasSuffix(".jpg") == true)
    }

    @Test("a .png?w=720&sig=… URL attaches as PNG", arguments: TransportKind.allCases)
    func signedQuery(_ t: TransportKind) async throws {
        let r = try await check("/cdn/logo.png?w=720&sig=9f2c1e", transport: t, outcome: .mediaAttached, reason: nil)
        #expect(r.content.attachments.first?.type == "public.png")
        #expect(r.content.attachments.first?.bytes == 1_906)
    }

    @Test("application/octet-stream carrying PNG bytes attaches as PNG", arguments: TransportKind.allCases)
    func octetStream(_ t: TransportKind) async throws {
        let r = try await check("/octet", transport: t, outcome: .mediaAttached, reason: nil)
        #expect(r.content.attachments.first?.type == "public.png")
    }

    @Test("404 with a JSON body is http_status 404", arguments: TransportKind.allCases)
    func notFoundJSON(_ t: TransportKind) async throws {
        try await check("/404json", transport: t, outcome: .textOnly, reason: .httpStatus, httpStatus: 404)
    }

    @Test("500 with an HTML body is http_status 500", arguments: TransportKind.allCases)
    func serverErrorHTML(_ t: TransportKind) async throws {
        try await check("/500html", transport: t, outcome: .textOnly, reason: .httpStatus, httpStatus: 500)
    }

    @Test("200 with an HTML login page is not_media", arguments: TransportKind.allCases)
    func loginPage(_ t: TransportKind) async throws {
        try await check("/login", transport: t, outcome: .textOnly, reason: .notMedia, httpStatus: 200)
    }

    @Test("an empty 200 is not_media", arguments: TransportKind.allCases)
    func emptyBody(_ t: TransportKind) async throws {
        try await check("/empty", transport: t, outcome: .textOnly, reason: .notMedia)
    }

    @Test("14 MB with Content-Length is too_large", arguments: TransportKind.allCases)
    func tooLargeWithLength(_ t: TransportKind) async throws {
        try await check("/big14", transport: t, outcome: .textOnly, reason: .tooLarge)
    }

    @Test("14 MB without Content-Length is too_large while streaming", arguments: TransportKind.allCases)
    func tooLargeStreamed(_ t: TransportKind) async throws {
        try await check("/big14-nolength", transport: t, outcome: .textOnly, reason: .tooLarge)
    }

    @Test("1 KB every 1.5 s ends at the deadline with timeout", arguments: TransportKind.allCases)
    func drip(_ t: TransportKind) async throws {
        let r = try await check("/drip", transport: t, outcome: .textOnly, reason: .timeout, deadline: Self.deadline)
        #expect(r.elapsedMs >= Int(Self.deadline * 1000) - 100)
    }

    @Test("a server that accepts and never answers ends at the deadline with timeout", arguments: TransportKind.allCases)
    func hang(_ t: TransportKind) async throws {
        let r = try await check("/hang", transport: t, outcome: .textOnly, reason: .timeout, deadline: Self.deadline)
        #expect(r.elapsedMs >= Int(Self.deadline * 1000) - 100)
    }

    @Test("a 302 to an image attaches the image", arguments: TransportKind.allCases)
    func redirectToImage(_ t: TransportKind) async throws {
        let r = try await check("/redirect-to-image", transport: t, outcome: .mediaAttached, reason: nil)
        #expect(r.content.attachments.first?.bytes == 89_696)
    }

    @Test("a redirect loop is redirect_limit", arguments: TransportKind.allCases)
    func redirectLoop(_ t: TransportKind) async throws {
        try await check("/loop", transport: t, outcome: .textOnly, reason: .redirectLimit)
    }

    @Test("a 7-hop chain is redirect_limit", arguments: TransportKind.allCases)
    func sevenHops(_ t: TransportKind) async throws {
        try await check("/chain/7", transport: t, outcome: .textOnly, reason: .redirectLimit)
    }

    @Test("a 5-hop chain is within the limit and attaches", arguments: TransportKind.allCases)
    func fiveHops(_ t: TransportKind) async throws {
        try await check("/chain/5", transport: t, outcome: .mediaAttached, reason: nil)
    }

    @Test("http:// without an ATS exception is insecure_scheme", arguments: TransportKind.allCases)
    func insecureScheme(_ t: TransportKind) async throws {
        try await check("/media/photo.jpg", transport: t, outcome: .textOnly, reason: .insecureScheme, allowLoopback: false)
    }

    @Test("a redirect hop to http:// on a host without an exception is insecure_scheme", arguments: TransportKind.allCases)
    func insecureRedirectHop(_ t: TransportKind) async throws {
        try await check("/redirect-to-host?host=localhost", transport: t, outcome: .textOnly, reason: .insecureScheme)
    }

    @Test("a path with spaces and Japanese characters is fetched, encoded once", arguments: TransportKind.allCases)
    func unicodePath(_ t: TransportKind) async throws {
        let r = try await check("/夏の 写真/photo 1.jpg", transport: t, outcome: .mediaAttached, reason: nil)
        #expect(r.content.attachments.first?.bytes == 89_696)
    }

    @Test("a path already percent-encoded is not encoded again", arguments: TransportKind.allCases)
    func preEncodedPath(_ t: TransportKind) async throws {
        try await check("/%E5%A4%8F%E3%81%AE%20写真/photo%201.jpg", transport: t, outcome: .mediaAttached, reason: nil)
    }

    @Test("a refused connection is network, at once rather than at the deadline", arguments: TransportKind.allCases)
    func refused(_ t: TransportKind) async throws {
        let configuration = try testConfiguration(deadline: Self.generousDeadline)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        // Port 9 (discard) has no listener on loopback here: the connection is refused.
        let (r, seconds, _) = await runTimed(mediaPayload("http://127.0.0.1:9/a.jpg"), configuration: configuration, transport: t)
        #expect(r.outcome == .textOnly)
        #expect(r.reason == .network, "\(r.message)")
        // Waiting for a connection that will never come would end at the 20 s deadline; half of
        // it tells the two apart on a machine loaded enough to hold the run back for seconds.
        #expect(seconds < Self.generousDeadline / 2, "delivered after \(seconds) s")
    }
}
