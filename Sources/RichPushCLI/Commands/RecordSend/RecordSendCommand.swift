import Foundation
import RichPushCore
import RichPushProvider
import RichPushServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `richpush record-send`: tells the statistics server about the sends of a push that another
/// system made (`POST /v1/pushes/{push_id}/sends`), so its receipts get a funnel and a display rate.
enum RecordSendCommand {
    static let spec = CommandSpec(
        name: "record-send",
        summary: "Record the sends of a push made elsewhere (OneSignal, your backend, richpush send) on the server.",
        usage: """
            richpush record-send PUSH_ID --batch-id ID (--sent N --accepted N [--skipped N] | --results FILE)
                   [--source NAME] [--title TEXT] [--server URL] [--admin-token TOKEN]
            """,
        discussion: """
            The display rate is delivered / accepted: receipts come from the devices, but sent and
            accepted come from whoever sent the push. Give the totals (--sent, --accepted) or the
            per-token results (--results FILE: the JSON lines `richpush send` prints, or a JSON
            array of {"token", "outcome", "status"?, "reason"?}; - reads stdin). Per-token results
            also feed the token lifecycle: tokens recorded token_inactive or token_bad are skipped
            by later POST /v1/pushes until the app registers them again.

            --batch-id names this batch (your job or request id): recording the same batch again
            is not counted twice, so a retry is safe. Results that do not fit one request (10,000
            results or 1 MB, whichever comes first) are sent as batches ID-1, ID-2, …, split the
            same way on every run of the same file, so re-running it counts nothing twice. A file of
            JSON lines may be any size (it is read as a stream); a JSON array is read whole, up to
            64 MiB.

            Exit status: 0 recorded (or already recorded), 1 refused by the server or not
            reachable (409: the batch id was recorded with other figures), 64 usage.

            Examples:
              richpush record-send 2018001 --batch-id onesignal-7f3a --source onesignal --sent 1200 --accepted 1180
              richpush send --tokens tokens.txt --payload p.json > results.jsonl
              richpush record-send 2018001 --batch-id send-42 --source richpush-send --results results.jsonl
            """,
        options: [
            .value("batch-id", "ID", help: "Names this batch; the same batch is recorded once (required)."),
            .value("sent", "N", help: "Tokens the provider answered for."),
            .value("accepted", "N", help: "Tokens the provider accepted."),
            .value("skipped", "N", help: "Tokens left out as known inactive or bad (default 0)."),
            .value("results", "FILE", help: "Per-token results: richpush send's JSON lines, or a JSON array; - = stdin."),
            .value("source", "NAME", help: "Where the figures come from: onesignal, backend, … (a-z 0-9 - _ .; default external)."),
            .value("title", "TEXT", help: "A title for the dashboard."),
        ] + StatisticsServerConnection.options,
        run: run
    )

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1, let pushID = args.positionals.first, !pushID.isEmpty else {
            throw UsageError(command: "record-send", message: "give exactly one PUSH_ID (the push_id the receipts name)")
        }
        guard let batchID = args.value("batch-id"), !batchID.isEmpty else {
            throw UsageError(command: "record-send", message: "'--batch-id ID' is required: it names this batch so that a retry is not counted twice")
        }
        let connection = try StatisticsServerConnection(args)
        var common: [String: RichPushJSONValue] = [:]
        if let source = args.value("source") { common["source"] = .string(source) }
        if let title = args.value("title") {
            guard title.utf8.count <= 256 else {
                throw UsageError(command: "record-send", message: "'--title' is \(title.utf8.count) bytes; the dashboard keeps at most 256")
            }
            common["title"] = .string(title)
        }

        let url = try connection.pushesURL(pushID, suffix: "/sends", command: "record-send")
        var totals = Totals()
        if let file = args.value("results") {
            for name in ["sent", "accepted", "skipped"] where args.value(name) != nil {
                throw UsageError(command: "record-send", message: "give either --results FILE or --sent/--accepted, not both ('--\(name)')")
            }
            try await recordResults(file: file, batchID: batchID, common: common, url: url, connection: connection, totals: &totals)
        } else {
            guard let sent = try args.integer("sent", in: 0...1_000_000_000), let accepted = try args.integer("accepted", in: 0...1_000_000_000) else {
                throw UsageError(command: "record-send", message: "give --sent N and --accepted N (the provider's totals), or --results FILE (per token)")
            }
            guard accepted <= sent else {
                throw UsageError(command: "record-send", message: "'--accepted \(accepted)' cannot be more than '--sent \(sent)'")
            }
            var body = common
            body["batch_id"] = .string(batchID)
            body["sent"] = .int(sent)
            body["accepted"] = .int(accepted)
            if let skipped = try args.integer("skipped", in: 0...1_000_000_000) { body["skipped"] = .int(skipped) }
            try await post(.object(body), batchID: batchID, url: url, connection: connection, totals: &totals)
        }
        let already =
            totals.duplicates == 0
            ? ""
            : totals.duplicates == totals.batches
                ? " (already recorded before: nothing counted twice)" : " (\(totals.duplicates) of \(totals.batches) batches were already recorded)"
        print(
            "recorded push \(pushID): sent \(totals.sent), accepted \(totals.accepted), skipped \(totals.skipped) in \(totals.batches) batch(es)\(already)")
        return 0
    }

    /// What the server answered, summed over the batches posted.
    struct Totals {
        var sent = 0, accepted = 0, skipped = 0, duplicates = 0, batches = 0
    }

    /// Records a results file batch by batch as it is read (`SendResultsFile`): a batch is posted
    /// once the next one has begun (so the first knows whether it is `ID` alone or `ID-1`), so at
    /// most two batches are in memory whatever the file's size.
    ///
    /// - Throws: `UsageError` for a file without results; `RichPushError` for a line that is not a
    ///   result (saying which batches were recorded before it) or a refusal by the server.
    private static func recordResults(
        file: String, batchID: String, common: [String: RichPushJSONValue], url: URL, connection: StatisticsServerConnection, totals: inout Totals
    ) async throws {
        let reader = try SendResultsFile(path: file)
        var recorded: [String] = []
        /// The next batch; a bad line after batches were posted says what was recorded.
        func read() async throws -> [RichPushJSONValue]? {
            do {
                return try await reader.nextBatch()
            } catch let error as RichPushError where !recorded.isEmpty {
                let span = recorded.count == 1 ? "batch \(recorded[0]) was" : "batches \(recorded[0])…\(recorded[recorded.count - 1]) were"
                throw RichPushError(
                    code: error.code,
                    message:
                        "\(error.message) (\(span) recorded before it; fix the file and run the same command again: what was recorded is not counted twice)")
            }
        }
        guard var pending = try await read() else {
            throw UsageError(command: "record-send", message: reader.emptyReason)
        }
        var next = try await read()
        let single = next == nil
        var number = 1
        while true {
            let id = single ? batchID : RecordedSendBatches.batchID(batchID, number: number, of: 2)
            var body = common
            body["batch_id"] = .string(id)
            body["results"] = .array(pending)
            try await post(.object(body), batchID: id, url: url, connection: connection, totals: &totals)
            recorded.append(id)
            guard let following = next else { break }
            pending = following
            number += 1
            next = try await read()
        }
    }

    /// Posts one body and adds the server's answer to `totals`.
    /// - Throws: `RichPushError` `server` when the server refuses it or is not RichPush.
    private static func post(_ body: RichPushJSONValue, batchID id: String, url: URL, connection: StatisticsServerConnection, totals: inout Totals) async throws
    {
        let (status, data) = try await connection.request(url, method: "POST", json: body.jsonData(), timeout: 60)
        guard status == 200, let answer = try? RichPushJSONValue.parse(data) else {
            if let error = StatisticsServerConnection.errorObject(data) {
                throw RichPushError(code: .server, message: "\(url.absoluteString) answered \(status) (\(error.code)) for batch \(id): \(error.message)")
            }
            throw RichPushError(code: .server, message: "\(url.absoluteString) answered \(status) for batch \(id): \(StatisticsServerConnection.notRichPush)")
        }
        totals.sent += answer["sent"]?.intValue ?? 0
        totals.accepted += answer["accepted"]?.intValue ?? 0
        totals.skipped += answer["skipped"]?.intValue ?? 0
        if answer["duplicate"] == .bool(true) { totals.duplicates += 1 }
        totals.batches += 1
    }

    /// The results held in memory: `richpush send`'s JSON lines, or a JSON array; each kept as the
    /// server's result object ({token, outcome, status, reason, message_id, inactive_since}).
    /// `record-send` itself streams the file (`SendResultsFile`); this reads bytes already in memory.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: its name, for messages.
    /// - Returns: the result objects, in order (tokens that are not device tokens left out).
    /// - Throws: `RichPushError` naming the line or item that is not a result.
    static func parseResults(_ data: Data, file: String) throws -> [RichPushJSONValue] {
        let text = String(decoding: data, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace }
        var items: [(line: Int, value: RichPushJSONValue)] = []
        if trimmed.first == "[" {
            guard let array = try RichPushJSONValue.parse(data).arrayValue else {
                throw RichPushError(code: .invalidJSON, message: "\(file) is not a JSON array of results")
            }
            items = array.enumerated().map { ($0.offset + 1, $0.element) }
        } else {
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let content = line.trimmingCharacters(in: .whitespaces)
                guard !content.isEmpty else { continue }
                do {
                    items.append((index + 1, try RichPushJSONValue.parseStrictly(Data(content.utf8))))
                } catch let error as RichPushError {
                    throw RichPushError(code: error.code, message: "\(file) line \(index + 1): \(error.message)")
                }
            }
        }
        return try items.compactMap { line, value in
            try SendResultsFile.result(value, item: line, unit: trimmed.first == "[" ? "item" : "line", file: file)
        }
    }
}
