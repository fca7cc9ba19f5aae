import Foundation
import RichPushCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How `stats` and `record-send` reach a running statistics server: `--server` and
/// `--admin-token` (else `RICHPUSH_SERVER` and `RICHPUSH_ADMIN_TOKEN`), one admin request with
/// the Bearer token, and the same messages for an unreachable server or a refused token.
struct StatisticsServerConnection {
    /// The two options, as both commands declare them.
    static let options: [ParsedArguments.Option] = [
        .value("server", "URL", help: "The server (default $RICHPUSH_SERVER, else http://127.0.0.1:8080)."),
        .value("admin-token", "TOKEN", help: "Admin token (default $RICHPUSH_ADMIN_TOKEN)."),
    ]

    /// The server's URL as given.
    let server: String
    /// The admin token.
    let token: String

    /// Reads `--server` and `--admin-token` (or their environment variables).
    ///
    /// - Parameters:
    ///   - args: the command's arguments.
    ///   - environment: the environment (default: the process's).
    /// - Throws: `UsageError` for a server that is not an http(s) URL, or no admin token.
    init(_ args: ParsedArguments, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        server = args.value("server", orEnvironment: "RICHPUSH_SERVER", environment) ?? "http://127.0.0.1:8080"
        guard let base = URL(string: server), let scheme = base.scheme, ["http", "https"].contains(scheme.lowercased()), base.host != nil else {
            throw UsageError(command: args.command, message: "'--server \(server)' must be an http(s) URL like http://127.0.0.1:8080")
        }
        guard let token = args.value("admin-token", orEnvironment: "RICHPUSH_ADMIN_TOKEN", environment), !token.isEmpty else {
            throw UsageError(command: args.command, message: "needs the admin token: --admin-token TOKEN or RICHPUSH_ADMIN_TOKEN (printed by richpush serve)")
        }
        self.token = token
    }

    /// The URL of `v1/pushes`, or of one push's `v1/pushes/PUSH_ID` plus `suffix`, the push id
    /// percent-encoded.
    ///
    /// - Parameters:
    ///   - pushID: the push, or `nil` for the list.
    ///   - suffix: what follows, e.g. `/sends` or `?limit=100`.
    ///   - command: the command, for the usage error.
    /// - Returns: the URL.
    /// - Throws: `UsageError` when no URL can be made from the server.
    func pushesURL(_ pushID: String?, suffix: String = "", command: String) throws -> URL {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        var path = "v1/pushes"
        if let pushID { path += "/" + (pushID.addingPercentEncoding(withAllowedCharacters: allowed) ?? pushID) }
        let root = server.hasSuffix("/") ? server : server + "/"
        guard let url = URL(string: root + path + suffix) else {
            throw UsageError(command: command, message: "cannot build a URL from '\(server)'")
        }
        return url
    }

    /// Sends one admin request with the Bearer token.
    ///
    /// - Parameters:
    ///   - url: where.
    ///   - method: `GET` or `POST`.
    ///   - json: the JSON body of a POST, if any.
    ///   - timeout: seconds for the whole request.
    ///   - headers: more headers (e.g. `Idempotency-Key`).
    /// - Returns: the status and the body.
    /// - Throws: `RichPushError` `server` when the server cannot be reached or answers 401.
    func request(
        _ url: URL, method: String = "GET", json: Data? = nil, timeout: Double, headers: [String: String] = [:]
    ) async throws -> (status: Int, data: Data) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.httpBody = json
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("richpush/\(RichPushVersion.current)", forHTTPHeaderField: "User-Agent")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw RichPushError(
                code: .server,
                message: "cannot reach the statistics server at \(server) (\(error.localizedDescription)); start it with 'richpush serve' or pass --server",
                underlying: error
            )
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 401 {
            throw RichPushError(
                code: .server,
                message: "the server refused the admin token (401); pass the token richpush serve printed, with --admin-token or RICHPUSH_ADMIN_TOKEN")
        }
        return (status, data)
    }

    /// The hint for an answer that is not RichPush's.
    static let notRichPush = "is this a RichPush server? (start one with richpush serve, or pass --server with its URL)"

    /// The longest server message printed whole, in characters (the server's are a sentence or
    /// two); a longer one is cut at a word, with `…`.
    static let maximumMessageCharacters = 2_000

    /// `{"error": {"code": …, "field": …, "message": …}}` as the statistics server answers errors,
    /// else `nil`. The message is whole (control characters shown as spaces, so a hostile server
    /// cannot drive the terminal); only past `maximumMessageCharacters` is it cut, at a word.
    static func errorObject(_ data: Data) -> (code: String, message: String)? {
        guard let value = try? RichPushJSONValue.parse(data), let error = value["error"], let code = error["code"]?.stringValue else { return nil }
        let raw = error["message"]?.stringValue ?? ""
        var message = String(String.UnicodeScalarView(raw.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        if message.count > maximumMessageCharacters {
            let head = message.prefix(maximumMessageCharacters)
            message = String(head.lastIndex(of: " ").map { head[..<$0] } ?? head) + " …"
        }
        let safeCode = String(code.prefix(64).unicodeScalars.filter { $0.properties.generalCategory != .control })
        return (safeCode, message)
    }
}
