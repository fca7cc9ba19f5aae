import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// The transports under test: libcurl (the Linux default) and URLSession (iOS's, here FoundationNetworking).
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case curl
    case urlSession

    var testDescription: String { rawValue }

    func make() -> any MediaTransport {
        switch self {
        case .curl:
            #if canImport(CCurl)
            return CurlMediaTransport()
            #else
            return URLSessionMediaTransport()
            #endif
        case .urlSession:
            return URLSessionMediaTransport()
        }
    }
}

/// The deadline of tests that expect the media to arrive (attached, or refused for what it turned
/// out to be), in seconds: the local server answers in milliseconds, but a 2-core machine loaded
/// by the rest of the suite was seen to hold such a run back past 10 s (`timeout` instead of
/// `media_attached`), and the deadline is not what these tests check.
let arrivalDeadline = 30.0

/// A configuration for tests: cleartext allowed to 127.0.0.1, a fresh attachments folder.
///
/// The default deadline (20 s) and receipt wait (10 s) are for tests where neither is the point:
/// a loaded 2-core machine can hold a run back by seconds, and a short deadline would then turn a
/// redirect or a download into `timeout`. Tests of the deadline or the wait set their own.
func testConfiguration(deadline: Double = 20, allowLoopback: Bool = true) throws -> RichPushConfiguration {
    var configuration = RichPushConfiguration()
    configuration.deadline = deadline
    configuration.receiptWait = 10
    if allowLoopback { configuration.allowedHTTPHosts = ["127.0.0.1"] }
    configuration.attachmentsDirectory = try Fixtures.temporaryDirectory("richpush-attachments")
    return configuration
}

/// A payload with a title, an empty body and the media URL under `image-url`.
func mediaPayload(_ url: String, pushID: String? = nil) -> RichPushJSONValue {
    var root: [String: RichPushJSONValue] = [
        "aps": .object(["alert": .object(["title": .string("New article"), "body": .string("Read it")]), "mutable-content": .int(1)]),
        "image-url": .string(url),
    ]
    if let pushID { root["push_id"] = .string(pushID) }
    return .object(root)
}

/// Runs a payload through a pipeline and measures the wall time to delivery.
func runTimed(
    _ payload: RichPushJSONValue, configuration: RichPushConfiguration, transport: TransportKind = .curl
) async -> (result: RichPushResult, seconds: Double, run: PipelineRun) {
    let pipeline = NotificationPipeline(configuration: configuration, transport: transport.make())
    let clock = ContinuousClock()
    let start = clock.now
    let run = pipeline.start(payload: payload) { _ in }
    let result = await run.result()
    let elapsed = clock.now - start
    let (s, atto) = elapsed.components
    return (result, Double(s) + Double(atto) / 1e18, run)
}

/// Every regular file left under a folder (recursively).
func filesLeft(in folder: URL) -> [String] {
    guard let e = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
    var out: [String] = []
    for case let url as URL in e where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
        out.append(url.path)
    }
    return out
}

/// Slack for "delivered before the deadline", in seconds, where the failure would be unbounded (a
/// server that drips for 150 s or never answers): timer wake-up, hand-over and the scheduling
/// delays of a loaded 2-core machine (seen up to 3.5 s while the whole suite runs beside other
/// builds), far below what a deadline that does not hold would take.
let deliverySlack = 5.0
