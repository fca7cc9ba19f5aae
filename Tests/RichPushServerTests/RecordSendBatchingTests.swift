import Foundation
import RichPushCore
import RichPushServer
import RichPushTestSupport
import Testing

@testable import RichPushCLI

/// Finding 1: `richpush record-send --results` records a file of any size: batches sized by bytes
/// as well as by count, with ids that are the same on every run of the same file.
@Suite("record-send batches", .serialized)
struct RecordSendBatchingTests {
    /// A line as `richpush send` prints it for an accepted APNs token (about 190 bytes).
    static func sendLine(_ i: Int) -> String {
        let token = String(format: "%064x", i + 1)
        let id = String(format: "%08X-0000-4000-8000-%012X", i, i)
        return #"{"token":"\#(token)","apns-id":"\#(id)","status":200,"reason":null,"outcome":"accepted","attempts":1,"message":null}"#
    }

    /// The bodies record-send would post, with the longest source and title the server takes.
    static func bodies(_ batches: RecordedSendBatches) -> [Data] {
        batches.batches.map { batch in
            JSONValue.object([
                "batch_id": .string(batch.batchID), "results": .array(batch.results),
                "source": .string(String(repeating: "s", count: 32)), "title": .string(String(repeating: "\u{1}", count: 256)),
            ]).jsonData()
        }
    }

    @Test("results past 1 MB are split by bytes: every body fits, order is kept, and the split is the same on every run")
    func splitByBytes() throws {
        let text = (0..<7_000).map(Self.sendLine).joined(separator: "\n")
        #expect(text.utf8.count > RecordedSendRequest.maximumBodyBytes)
        let results = try RecordSendCommand.parseResults(Data(text.utf8), file: "res.jsonl")
        let batches = try RecordedSendBatches(results: results, batchID: "send-7k")
        #expect(batches.batches.count == 2)
        #expect(batches.batches.map(\.batchID) == ["send-7k-1", "send-7k-2"])
        for body in Self.bodies(batches) {
            #expect(body.count <= RecordedSendRequest.maximumBodyBytes)
            // Each body is one the server reads (1 MB, 10,000 results, every field valid).
            let request = try RecordedSendRequest(pushID: "p", body: body, nowMs: 0)
            #expect(request.record.tokens.count <= PushSendRequest.maximumTokens)
        }
        // Full batches: the first is filled close to the limit, not cut at an arbitrary count.
        #expect(try #require(Self.bodies(batches).first).count > RecordedSendRequest.maximumBodyBytes - RecordedSendBatches.envelopeBytes - 200)
        #expect(batches.batches.flatMap(\.results) == results)
        let again = try RecordedSendBatches(results: try RecordSendCommand.parseResults(Data(text.utf8), file: "res.jsonl"), batchID: "send-7k")
        #expect(again.batches.map(\.batchID) == batches.batches.map(\.batchID))
        #expect(again.batches.map(\.results) == batches.batches.map(\.results))
    }

    @Test("short results are still cut at 10,000 (as before: a file recorded by an older richpush gets the same batches); one batch keeps the id as given")
    func splitByCount() throws {
        let results = (0..<25_000).map { JSONValue.object(["token": .string(String(format: "%064x", $0 + 1)), "outcome": .string("accepted")]) }
        let batches = try RecordedSendBatches(results: results, batchID: "job")
        #expect(batches.batches.map(\.results.count) == [10_000, 10_000, 5_000])
        #expect(batches.batches.map(\.batchID) == ["job-1", "job-2", "job-3"])
        #expect(Self.bodies(batches).allSatisfy { $0.count <= RecordedSendRequest.maximumBodyBytes })
        let one = try RecordedSendBatches(results: Array(results.prefix(3)), batchID: "job")
        #expect(one.batches.map(\.batchID) == ["job"])
        #expect(one.batches.first?.results.count == 3)
        // A tiny limit: every batch holds what fits, and a result larger than a body is refused by name.
        let small = try RecordedSendBatches(results: Array(results.prefix(10)), batchID: "b", maximumBodyBytes: RecordedSendBatches.envelopeBytes + 300)
        #expect(small.batches.map(\.results.count) == [3, 3, 3, 1])
        #expect(throws: RichPushError.self) {
            try RecordedSendBatches(results: Array(results.prefix(1)), batchID: "b", maximumBodyBytes: RecordedSendBatches.envelopeBytes + 50)
        }
    }

    @Test("richpush record-send records a 7,000-line send results file (1.3 MB, over the old limit) and a re-run counts nothing twice")
    func recordsALargeFile() async throws {
        let server = try await ServerProcess()
        let dir = try Fixtures.temporaryDirectory("record-send-large")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("res7k.jsonl")
        try ((0..<7_000).map(Self.sendLine).joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let arguments = [
            "record-send", "camp7k", "--batch-id", "send-7k", "--source", "richpush-send", "--results", file.path,
            "--server", "http://127.0.0.1:\(server.port)",
        ]
        let first = try await ChildProcess(Fixtures.richpushBinary.path, arguments, environment: ["RICHPUSH_ADMIN_TOKEN": ServerProcess.token]).run(
            timeout: 120)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("recorded push camp7k: sent 7000, accepted 7000, skipped 0 in 2 batch(es)"), "\(first.stdout)")
        let rerun = try await ChildProcess(Fixtures.richpushBinary.path, arguments, environment: ["RICHPUSH_ADMIN_TOKEN": ServerProcess.token]).run(
            timeout: 120)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("already recorded before: nothing counted twice"), "\(rerun.stdout)")
        let push = try await server.push("camp7k")
        #expect(push["sent"] as? Int == 7_000)
        #expect(push["accepted"] as? Int == 7_000)
        #expect(push["sources"] as? [String] == ["richpush-send"])
        #expect(await server.terminate() == 0)
    }
}
