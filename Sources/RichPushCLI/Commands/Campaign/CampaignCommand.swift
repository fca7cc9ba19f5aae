import Foundation
import RichPushCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `richpush campaign create FILE|- [--idempotency-key KEY] [--watch]`, `richpush campaign status
/// ID [--watch]`, `richpush campaign cancel ID`: drives `POST /v1/campaigns` and friends on a
/// running server.
enum CampaignCommand {
    static let spec = CommandSpec(
        name: "campaign",
        summary: "Create a campaign on a running server, follow it, or cancel it.",
        usage:
            "richpush campaign create FILE|- [--idempotency-key KEY] [--watch] [--json] [--server URL] [--admin-token TOKEN]\n       richpush campaign status CAMPAIGN_ID [--watch] [--json] [--server URL] [--admin-token TOKEN]\n       richpush campaign cancel CAMPAIGN_ID [--json] [--server URL] [--admin-token TOKEN]",
        discussion: """
            create posts FILE (or standard input for -) as the POST /v1/campaigns body, e.g.
            {"audience": {"all": true}, "title": "Sale", "body": "-30 %", "per_minute": 60000};
            see docs/campaigns.md. A retried create with the same --idempotency-key (a UUID per
            campaign) creates nothing new. status prints the state and counters; --watch
            follows the campaign until it finishes or is cancelled: a progress bar on a
            terminal, one line every 2 s otherwise. cancel stops new sends.

            Exit status: 0 on success (with --watch: the campaign finished), 1 when the server
            refused or cannot be reached, or a watched campaign was cancelled; 64 on a usage error.

            Example:
              RICHPUSH_ADMIN_TOKEN=… richpush campaign create sale.json --idempotency-key "$(uuidgen)" --watch
            """,
        options: StatisticsServerConnection.options + [
            .value("idempotency-key", "KEY", help: "create: the Idempotency-Key header (a UUID per campaign)."),
            .flag("watch", help: "create, status: follow the campaign until it ends."),
            .flag("json", help: "Print the server's JSON."),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let command = "campaign"
        guard let sub = args.positionals.first else {
            throw UsageError(command: command, message: "give a subcommand: create FILE|-, status CAMPAIGN_ID, or cancel CAMPAIGN_ID")
        }
        guard ["create", "status", "cancel"].contains(sub) else {
            throw UsageError(command: command, message: "unknown subcommand '\(sub)': use create FILE|-, status CAMPAIGN_ID or cancel CAMPAIGN_ID")
        }
        guard args.positionals.count == 2 else {
            throw UsageError(command: command, message: "'campaign \(sub)' takes exactly one argument, got \(args.positionals.count - 1)")
        }
        let argument = args.positionals[1]
        let connection = try StatisticsServerConnection(args)
        if sub != "create", args.value("idempotency-key") != nil {
            throw UsageError(command: command, message: "--idempotency-key belongs to 'campaign create'")
        }
        let campaign: RichPushJSONValue
        switch sub {
        case "create":
            let body: Data
            do {
                body = argument == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: argument))
            } catch {
                throw RichPushError(code: .io, message: "cannot read the campaign body \(argument): \(error.localizedDescription)")
            }
            var headers: [String: String] = [:]
            if let key = args.value("idempotency-key") { headers["Idempotency-Key"] = key }
            campaign = try await call(connection, "POST", "", json: body, headers: headers, expect: 202, printJSON: args.flag("json"))
        case "status":
            campaign = try await call(connection, "GET", "/" + (try id(argument)), expect: 200, printJSON: args.flag("json"))
        case "cancel":
            guard !args.flag("watch") else { throw UsageError(command: command, message: "--watch belongs to 'campaign create' and 'campaign status'") }
            campaign = try await call(connection, "POST", "/" + (try id(argument)) + "/cancel", expect: 200, printJSON: args.flag("json"))
        default:
            throw UsageError(command: command, message: "unknown subcommand '\(sub)': use create FILE|-, status CAMPAIGN_ID or cancel CAMPAIGN_ID")
        }
        try show(campaign, json: args.flag("json"))
        guard args.flag("watch"), let campaignID = campaign["campaign_id"]?.stringValue else { return 0 }
        return try await watch(connection, campaignID, json: args.flag("json"))
    }

    private static func id(_ text: String) throws -> String {
        guard (1...64).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || $0 == 45 }) else {
            throw UsageError(command: "campaign", message: "'\(text.prefix(80))' is not a campaign id (the UUID campaign create printed)")
        }
        return text
    }

    /// One request to `/v1/campaigns` + `path`; the JSON answer, or the server's error (its
    /// message whole; with `printJSON`, also printed on standard output as
    /// `{"status": 422, "error": {"code", "field", "message"}}`, so `--json` prints the refusal).
    private static func call(
        _ connection: StatisticsServerConnection, _ method: String, _ path: String, json: Data? = nil, headers: [String: String] = [:], expect: Int,
        printJSON: Bool = false
    ) async throws -> RichPushJSONValue {
        let root = connection.server.hasSuffix("/") ? connection.server : connection.server + "/"
        guard let url = URL(string: root + "v1/campaigns" + path) else {
            throw UsageError(command: "campaign", message: "cannot build a URL from '\(connection.server)'")
        }
        let (status, data) = try await connection.request(url, method: method, json: json, timeout: 60, headers: headers)
        guard status == expect, let value = try? RichPushJSONValue.parse(data) else {
            if printJSON {
                var error: RichPushJSONValue = .object(["code": .string("not_richpush"), "message": .string(StatisticsServerConnection.notRichPush)])
                if let parsed = try? RichPushJSONValue.parse(data), let object = parsed["error"]?.objectValue, object["code"]?.stringValue != nil {
                    error = .object(object)
                }
                try StandardOutput.print(
                    String(decoding: RichPushJSONValue.object(["status": .int(status), "error": error]).jsonData(sortedKeys: true), as: UTF8.self))
            }
            if let error = StatisticsServerConnection.errorObject(data) {
                throw RichPushError(code: .server, message: "\(url.absoluteString) answered \(status) (\(error.code)): \(error.message)")
            }
            throw RichPushError(code: .server, message: "\(url.absoluteString) answered \(status): \(StatisticsServerConnection.notRichPush)")
        }
        return value
    }

    /// `campaign <id> <state>: <done>/<targets> (sent s, accepted a, skipped k, failed f, in flight i, resent r)`.
    static func line(_ c: RichPushJSONValue) -> String {
        func n(_ key: String) -> Int { c[key]?.integerLiteralValue ?? 0 }
        // Every target with a result is accepted, skipped or failed.
        let finished = n("accepted") + n("skipped") + n("failed")
        var text =
            "campaign \(c["campaign_id"]?.stringValue ?? "?") \(c["state"]?.stringValue ?? "?"): \(finished)/\(n("targets")) done"
            + " (sent \(n("sent")), accepted \(n("accepted")), skipped \(n("skipped")), failed \(n("failed")), in flight \(n("in_flight")), resent after a crash \(n("resent_after_crash")))"
        if let rate = c["rate_per_minute"]?.integerLiteralValue { text += ", \(rate)/min" }
        if let error = c["last_error"]?.stringValue { text += "; last error: \(error)" }
        return text
    }

    private static func show(_ c: RichPushJSONValue, json: Bool) throws {
        try StandardOutput.print(json ? String(decoding: c.jsonData(sortedKeys: true), as: UTF8.self) : line(c))
    }

    /// Polls until the campaign is finished or cancelled.
    private static func watch(_ connection: StatisticsServerConnection, _ id: String, json: Bool) async throws -> Int32 {
        let terminal = isatty(STDERR_FILENO) == 1 && !json
        var bar: ProgressBar?
        while true {
            let c = try await call(connection, "GET", "/" + id, expect: 200, printJSON: json)
            let state = c["state"]?.stringValue ?? ""
            let done = ["accepted", "skipped", "failed"].map { c[$0]?.integerLiteralValue ?? 0 }.reduce(0, +)
            if terminal {
                if bar == nil { bar = ProgressBar(total: c["targets"]?.integerLiteralValue) }
                bar?.update(done: done)
            }
            if state == "finished" || state == "cancelled" {
                bar?.finish(done: done)
                try show(c, json: json)
                return state == "finished" ? 0 : 1
            }
            if !terminal && !json { try show(c, json: false) }
            try await Task.sleep(for: .seconds(terminal ? 0.5 : 2))
        }
    }
}
