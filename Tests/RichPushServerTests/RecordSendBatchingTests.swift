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
            RichPushJSONValue.object([
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
        let results = (0..<25_000).map { RichPushJSONValue.object(["token": .string(String(format: "%064x", $0 + 1)), "outcome": .string("accepted")]) }
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

    @Test("the streamed file gives the very batches the whole file does (JSON lines with blanks and CRLF, and a JSON array)")
    func streamMatchesWhole() async throws {
        let dir = try Fixtures.temporaryDirectory("record-send-stream")
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = (0..<16_000).map(Self.sendLine)
        let whole = try RecordedSendBatches(results: try RecordSendCommand.parseResults(Data(lines.joined(separator: "\n").utf8), file: "r"), batchID: "x")
        #expect(whole.batches.count >= 3)
        let file = dir.appendingPathComponent("r.jsonl")
        try ("\n" + lines.joined(separator: "\r\n") + "\r\n\n").write(to: file, atomically: true, encoding: .utf8)
        let arrayFile = dir.appendingPathComponent("r.json")
        try (" [" + lines.joined(separator: ",\n") + "]\n").write(to: arrayFile, atomically: true, encoding: .utf8)
        for path in [file.path, arrayFile.path] {
            let reader = try SendResultsFile(path: path)
            var streamed: [[RichPushJSONValue]] = []
            while let batch = try await reader.nextBatch() { streamed.append(batch) }
            #expect(streamed == whole.batches.map(\.results), "\(path)")
            #expect(reader.resultsKept == 16_000)
        }
        // A bad line names its line number in the file.
        let bad = dir.appendingPathComponent("bad.jsonl")
        try (lines.prefix(3).joined(separator: "\n") + "\n\n{\"token\": 1}\n").write(to: bad, atomically: true, encoding: .utf8)
        let reader = try SendResultsFile(path: bad.path)
        do {
            _ = try await reader.nextBatch()
            Issue.record("a result without outcome was read")
        } catch let error as RichPushError {
            #expect(error.message == "\(bad.path) line 5: a result needs \"token\" and \"outcome\" (as richpush send prints them)")
        }
    }

    @Test("richpush record-send records a 100,000-line results file (18 MB, over the old 16 MiB limit) as a stream, and a re-run counts nothing twice")
    func recordsAHundredThousandLines() async throws {
        let server = try await ServerProcess()
        let dir = try Fixtures.temporaryDirectory("record-send-100k")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("res100k.jsonl")
        try ((0..<100_000).map(Self.sendLine).joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        #expect(size > InputFile.maximumBytes)
        let expected = try RecordedSendBatches(
            results: try RecordSendCommand.parseResults(try Data(contentsOf: file), file: "res100k.jsonl"), batchID: "send-100k")
        let arguments = [
            "record-send", "camp100k", "--batch-id", "send-100k", "--source", "richpush-send", "--results", file.path,
            "--server", "http://127.0.0.1:\(server.port)",
        ]
        let environment = ["RICHPUSH_ADMIN_TOKEN": ServerProcess.token]
        let first = try await ChildProcess(Fixtures.richpushBinary.path, arguments, environment: environment).run(timeout: 300)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout == "recorded push camp100k: sent 100000, accepted 100000, skipped 0 in \(expected.batches.count) batch(es)\n",
            "\(first.stdout)")
        #expect(expected.batches.count > 10)
        let rerun = try await ChildProcess(Fixtures.richpushBinary.path, arguments, environment: environment).run(timeout: 300)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("in \(expected.batches.count) batch(es) (already recorded before: nothing counted twice)"), "\(rerun.stdout)")
        let push = try await server.push("camp100k")
        #expect(push["sent"] as? Int == 100_000)
        #expect(push["accepted"] as? Int == 100_000)
        #expect(await server.terminate() == 0)
    }

    @Test("record-send --results with no results says so: an empty array, an empty file, results without a device token")
    func emptyResults() async throws {
        let dir = try Fixtures.temporaryDirectory("record-send-empty")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(String, String, String)] = [
            ("empty.json", " [ ]\n", "holds an empty JSON array ([]): there are no results to record"),
            ("empty.jsonl", "\n\n", "holds no results: it is empty"),
            ("bad.jsonl", #"{"token":"not a token","outcome":"token_bad"}"#, "none of the 1 result(s) in"),
        ]
        for (name, text, message) in cases {
            let file = dir.appendingPathComponent(name)
            try text.write(to: file, atomically: true, encoding: .utf8)
            let run = try await ChildProcess(
                Fixtures.richpushBinary.path,
                ["record-send", "p", "--batch-id", "b", "--results", file.path, "--server", "http://127.0.0.1:1", "--admin-token", ServerProcess.token]
            ).run(timeout: 60)
            #expect(run.status == 64, "\(name): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(name): \(run.stderr)")
            #expect(!run.stderr.contains("one JSON object per line"), "\(name): \(run.stderr)")
        }
    }
}
