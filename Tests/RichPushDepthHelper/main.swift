// richpush-depth-helper: runs one piece of the extension's shared-container state from its own
// process, so tests can run several at once against one directory (flock, atomic renames).
//
//   badge DIR OP [N]                      apply a badge_op (N times); prints the last new value
//   cache-fill DIR MAXBYTES FILE PREFIX N store FILE under N URLs PREFIX0…, reading each back;
//                                         prints "ok N" or "mismatch URL"
//   receipt-submit DIR URL PUSH_ID        queue and send one receipt; prints status and HTTP status
//   receipt-flush DIR                     flush the queue; prints sent/kept/dropped counts
//   fetch curl|urlsession URL DIR         fetch one media URL (http to 127.0.0.1 allowed) into DIR;
//                                         prints "reason=… bytes=… peak=<VmHWM bytes>" and the message
import Foundation
@_spi(RichPushInternal) import RichPushExtension

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("richpush-depth-helper: \(message)\n".utf8))
    exit(2)
}

let args = Array(CommandLine.arguments.dropFirst())
guard let command = args.first else { fail("usage: badge|cache-fill|receipt-submit|receipt-flush …") }

do {
    switch command {
    case "badge" where args.count == 3 || args.count == 4:
        guard let op = BadgeOperation(json: .string(args[2])) else { fail("not a badge op: \(args[2])") }
        let times = args.count == 4 ? Int(args[3]) ?? 1 : 1
        let counter = RichPushBadgeCounter(directory: URL(fileURLWithPath: args[1]))
        var last = 0
        for _ in 0..<times { last = try counter.apply(op) }
        print(last)
    case "cache-fill" where args.count == 6:
        guard let maxBytes = Int(args[2]), let count = Int(args[5]) else { fail("bad numbers") }
        let cache = MediaCache(directory: URL(fileURLWithPath: args[1]), maximumBytes: maxBytes)
        let source = URL(fileURLWithPath: args[3])
        let expected = try Data(contentsOf: source)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("depth-helper-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        for i in 0..<count {
            let url = "\(args[4])\(i)"
            try cache.store(url, file: source, cacheControl: "max-age=600")
            let copy = scratch.appendingPathComponent("\(i)")
            // A hit must be the complete file; a miss (evicted by the other process) is fine.
            if try cache.retrieve(url, to: copy) != nil, try Data(contentsOf: copy) != expected {
                print("mismatch \(url)")
                exit(1)
            }
        }
        print("ok \(count)")
    case "receipt-submit" where args.count == 4:
        guard let url = URL(string: args[2]) else { fail("bad URL") }
        let delivery = RichPushReceiptDelivery(directory: URL(fileURLWithPath: args[1]))
        let result = try await delivery.submit(RichPushReceipt(pushID: args[3], outcome: .textOnly), to: url, timeout: 3)
        print("\(result.status) \(result.httpStatus.map(String.init) ?? "-")")
    case "receipt-flush" where args.count == 2:
        let report = try await RichPushReceiptDelivery(directory: URL(fileURLWithPath: args[1])).flushPendingReceipts(timeout: 3)
        print("sent=\(report.sent.count) kept=\(report.kept.count) dropped=\(report.dropped.count) remaining=\(report.remaining)")
    case "fetch" where args.count == 4:
        guard let url = URL(string: args[2]) else { fail("bad URL") }
        let transport: any MediaTransport = args[1] == "urlsession" ? URLSessionMediaTransport() : NotificationPipeline.defaultTransport
        let fetcher = MediaFetcher(transport: transport, allowedHTTPHosts: ["127.0.0.1"])
        let folder = URL(fileURLWithPath: args[3]).appendingPathComponent(UUID().uuidString)
        var line: String
        do {
            // Generous: the tests measure memory, and a loaded machine (this helper runs at a
            // lower priority) may take long to be served a gzip bomb the server makes first.
            let media = try await fetcher.fetch(url, into: folder, deadline: .now + .seconds(90))
            line = "reason=none bytes=\(media.bytes)"
        } catch {
            line = "reason=\(error.reason.rawValue) bytes=0"
            print(error.message)
        }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        print("\(line) peak=\((peak ?? 0) * 1024)")
    default:
        fail("unknown command or wrong arguments: \(args)")
    }
} catch {
    fail("\(error)")
}
