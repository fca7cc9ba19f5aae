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
            same way on every run of the same file, so re-running it counts nothing twice.

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
        var common: [String: JSONValue] = [:]
        if let source = args.value("source") { common["source"] = .string(source) }
        if let title = args.value("title") {
            guard title.utf8.count <= 256 else {
                throw UsageError(command: "record-send", message: "'--title' is \(title.utf8.count) bytes; the dashboard keeps at most 256")
            }
            common["title"] = .string(title)
        }

        var bodies: [(batchID: String, body: JSONValue)] = []
        if let file = args.value("results") {
            for name in ["sent", "accepted", "skipped"] where args.value(name) != nil {
                throw UsageError(command: "record-send", message: "give either --results FILE or --sent/--accepted, not both ('--\(name)')")
            }
            let results = try parseResults(try await InputFile.read(file, what: "the results"), file: file)
            guard !results.isEmpty else {
                throw UsageError(
                    command: "record-send",
                    message: "\(file == "-" ? "standard input" : file) has no results (one JSON object per line with \"token\" and \"outcome\")")
            }
            for batch in try RecordedSendBatches(results: results, batchID: batchID).batches {
                var body = common
                body["batch_id"] = .string(batch.batchID)
                body["results"] = .array(batch.results)
                bodies.append((batch.batchID, .object(body)))
            }
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
            bodies.append((batchID, .object(body)))
        }

        let url = try connection.pushesURL(pushID, suffix: "/sends", command: "record-send")
        var totals = (sent: 0, accepted: 0, skipped: 0, duplicates: 0)
        for (id, body) in bodies {
            let (status, data) = try await connection.request(url, method: "POST", json: body.jsonData(), timeout: 60)
            guard status == 200, let answer = try? JSONValue.parse(data) else {
                if let error = StatisticsServerConnection.errorObject(data) {
                    throw RichPushError(code: .server, message: "\(url.absoluteString) answered \(status) (\(error.code)) for batch \(id): \(error.message)")
                }
                throw RichPushError(
                    code: .server, message: "\(url.absoluteString) answered \(status) for batch \(id): \(StatisticsServerConnection.notRichPush)")
            }
            totals.sent += answer["sent"]?.intValue ?? 0
            totals.accepted += answer["accepted"]?.intValue ?? 0
            totals.skipped += answer["skipped"]?.intValue ?? 0
            if answer["duplicate"] == .bool(true) { totals.duplicates += 1 }
        }
        let already =
            totals.duplicates == 0
            ? ""
            : totals.duplicates == bodies.count
                ? " (already recorded before: nothing counted twice)" : " (\(totals.duplicates) of \(bodies.count) batches were already recorded)"
        print("recorded push \(pushID): sent \(totals.sent), accepted \(totals.accepted), skipped \(totals.skipped) in \(bodies.count) batch(es)\(already)")
        return 0
    }

    /// The results of a file: `richpush send`'s JSON lines, or a JSON array; each kept as the
    /// server's result object ({token, outcome, status, reason, message_id, inactive_since}).
    static func parseResults(_ data: Data, file: String) throws -> [JSONValue] {
        let text = String(decoding: data, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace }
        var items: [(line: Int, value: JSONValue)] = []
        if trimmed.first == "[" {
            guard let array = try JSONValue.parse(data).arrayValue else {
                throw RichPushError(code: .invalidJSON, message: "\(file) is not a JSON array of results")
            }
            items = array.enumerated().map { ($0.offset + 1, $0.element) }
        } else {
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let content = line.trimmingCharacters(in: .whitespaces)
                guard !content.isEmpty else { continue }
                do {
                    items.append((index + 1, try JSONValue.parseStrictly(Data(content.utf8))))
                } catch let error as RichPushError {
                    throw RichPushError(code: error.code, message: "\(file) line \(index + 1): \(error.message)")
                }
            }
        }
        return try items.compactMap { line, value in
            guard let token = value["token"]?.stringValue, let outcome = value["outcome"]?.stringValue else {
                throw RichPushError(
                    code: .invalidPayload,
                    message: "\(file) \(file == "-" ? "item" : "line") \(line): a result needs \"token\" and \"outcome\" (as richpush send prints them)")
            }
            // A token that is not one (richpush send reports it token_bad, never sent) is left out:
            // the server's rule (DeviceTokenRule) would refuse the whole batch for it.
            guard DeviceTokenRule.canonical(token, provider: nil) != nil else { return nil }
            var result: [String: JSONValue] = ["token": .string(token), "outcome": .string(outcome)]
            if let status = value["status"] { result["status"] = status }
            if let reason = value["reason"], reason != .null { result["reason"] = reason }
            if let id = value["message_id"] ?? value["apns-id"] ?? value["apns_id"], id != .null { result["message_id"] = id }
            if outcome == "token_inactive", let since = value["inactive_since"] ?? value["timestamp"], since != .null { result["inactive_since"] = since }
            return .object(result)
        }
    }
}
