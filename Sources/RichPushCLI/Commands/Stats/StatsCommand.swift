import Foundation
import RichPushCore
import RichPushServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `richpush stats`: the server's per-push figures as a terminal table.
enum StatsCommand {
    static let spec = CommandSpec(
        name: "stats",
        summary: "Print per-push figures from a running statistics server.",
        usage: "richpush stats [PUSH_ID] [--server URL] [--admin-token TOKEN] [--limit N] [--json]",
        discussion: """
            Without PUSH_ID: one line per push (most recently seen first). With PUSH_ID: that
            push in detail, with its outcome and reason breakdown.
            Display rate = delivered / accepted; it stays '—' until the provider records sends.

            Exit status: 0 on success, 1 when the server cannot be reached, refuses the token,
            or knows no such push.

            Example:
              RICHPUSH_ADMIN_TOKEN=… richpush stats 2018001 --server http://127.0.0.1:8080
            """,
        options: StatisticsServerConnection.options + [
            .value("limit", "N", help: "Without PUSH_ID: most pushes to list (1…1000, default 100)."),
            .flag("json", help: "Print the server's JSON instead of a table."),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count <= 1 else {
            throw UsageError(command: "stats", message: "give at most one PUSH_ID")
        }
        let connection = try StatisticsServerConnection(args)
        let limit = try args.integer("limit", in: 1...1000) ?? 100
        let pushID = args.positionals.first
        let url = try connection.pushesURL(pushID, suffix: pushID == nil ? "?limit=\(limit)" : "", command: "stats")
        let (status, data) = try await connection.request(url, timeout: 30)
        // Only a RichPush JSON error is quoted; anything else (an HTML 404 page of another
        // server, an empty body) is summed up in one line.
        let richPushError = StatisticsServerConnection.errorObject(data)
        let answered = "\(url.absoluteString) answered \(status)"
        switch status {
        case 200: break
        case 404 where pushID != nil && richPushError?.code == "unknown_push":
            throw RichPushError(code: .server, message: "the server knows no push_id '\(pushID ?? "")' (no receipts or sends yet)")
        default:
            if let richPushError {
                throw RichPushError(code: .server, message: "\(answered) (\(richPushError.code)): \(richPushError.message)")
            }
            throw RichPushError(code: .server, message: "\(answered): \(StatisticsServerConnection.notRichPush)")
        }
        if args.flag("json") {
            FileHandle.standardOutput.write(data)
            return 0
        }
        do {
            if pushID != nil {
                print(StatsTable.detail(try JSONDecoder().decode(PushStatistics.self, from: data)), terminator: "")
            } else {
                print(StatsTable.list(try JSONDecoder().decode(PushList.self, from: data).pushes), terminator: "")
            }
        } catch {
            throw RichPushError(
                code: .server, message: "\(url.absoluteString) answered 200 but not with RichPush statistics JSON: \(StatisticsServerConnection.notRichPush)",
                underlying: error)
        }
        return 0
    }
}
