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
        usage: "richpush stats [PUSH_ID] [--server URL] [--admin-token TOKEN] [--json]",
        discussion: """
            Without PUSH_ID: one line per push (most recently seen first). With PUSH_ID: that
            push in detail, with its outcome and reason breakdown.
            Display rate = delivered / accepted; it stays '—' until the provider records sends.

            Exit status: 0 on success, 1 when the server cannot be reached, refuses the token,
            or knows no such push.

            Example:
              RICHPUSH_ADMIN_TOKEN=… richpush stats 2018001 --server http://127.0.0.1:8080
            """,
        options: [
            .value("server", "URL", help: "The server (default $RICHPUSH_SERVER, else http://127.0.0.1:8080)."),
            .value("admin-token", "TOKEN", help: "Admin token (default $RICHPUSH_ADMIN_TOKEN)."),
            .value("limit", "N", help: "Most pushes to list (1…1000, default 100)."),
            .flag("json", help: "Print the server's JSON instead of a table."),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count <= 1 else {
            throw UsageError(command: "stats", message: "give at most one PUSH_ID")
        }
        let env = ProcessInfo.processInfo.environment
        let serverText = args.value("server") ?? env["RICHPUSH_SERVER"] ?? "http://127.0.0.1:8080"
        guard let base = URL(string: serverText), let scheme = base.scheme, ["http", "https"].contains(scheme.lowercased()), base.host != nil else {
            throw UsageError(command: "stats", message: "'--server \(serverText)' must be an http(s) URL like http://127.0.0.1:8080")
        }
        guard let token = args.value("admin-token") ?? env["RICHPUSH_ADMIN_TOKEN"], !token.isEmpty else {
            throw UsageError(command: "stats", message: "needs the admin token: --admin-token TOKEN or RICHPUSH_ADMIN_TOKEN (printed by richpush serve)")
        }
        let limit = try args.integer("limit", in: 1...1000) ?? 100
        let pushID = args.positionals.first
        var path = "v1/pushes"
        if let pushID {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            path += "/" + (pushID.addingPercentEncoding(withAllowedCharacters: allowed) ?? pushID)
        } else {
            path += "?limit=\(limit)"
        }
        let root = serverText.hasSuffix("/") ? serverText : serverText + "/"
        guard let url = URL(string: root + path) else {
            throw UsageError(command: "stats", message: "cannot build a URL from '\(serverText)'")
        }
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("richpush/\(RichPushVersion.current)", forHTTPHeaderField: "User-Agent")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw RichPushError(
                code: .server,
                message: "cannot reach the statistics server at \(serverText) (\(error.localizedDescription)); start it with 'richpush serve' or pass --server",
                underlying: error
            )
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        // Only a RichPush JSON error is quoted; anything else (an HTML 404 page of another
        // server, an empty body) is summed up in one line.
        let richPushError = Self.errorObject(data)
        let answered = "\(url.absoluteString) answered \(status)"
        switch status {
        case 200: break
        case 401:
            throw RichPushError(code: .server, message: "the server refused the admin token (401); pass the token richpush serve printed, with --admin-token or RICHPUSH_ADMIN_TOKEN")
        case 404 where pushID != nil && richPushError?.code == "unknown_push":
            throw RichPushError(code: .server, message: "the server knows no push_id '\(pushID ?? "")' (no receipts or sends yet)")
        default:
            if let richPushError {
                throw RichPushError(code: .server, message: "\(answered) (\(richPushError.code)): \(richPushError.message)")
            }
            throw RichPushError(code: .server, message: "\(answered): \(Self.notRichPush)")
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
                code: .server, message: "\(url.absoluteString) answered 200 but not with RichPush statistics JSON: \(Self.notRichPush)", underlying: error)
        }
        return 0
    }

    /// The hint for an answer that is not RichPush's.
    static let notRichPush = "is this a RichPush server? (start one with richpush serve, or pass --server with its URL)"

    /// `{"error": {"code": …, "message": …}}` as the statistics server answers errors, else `nil`.
    static func errorObject(_ data: Data) -> (code: String, message: String)? {
        guard let value = try? JSONValue.parse(data), let error = value["error"], let code = error["code"]?.stringValue else { return nil }
        return (code, String((error["message"]?.stringValue ?? "").prefix(300)))
    }
}
