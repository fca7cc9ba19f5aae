import Foundation
import RichPushCore
import RichPushServer

/// `richpush serve`: the statistics server (receipts in, figures and dashboard out).
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Run the statistics server: receipts in, display rates and a dashboard out.",
        usage: "richpush serve [--host 127.0.0.1] [--port 8080] [--db PATH] [--admin-token TOKEN]",
        discussion: """
            Listens for receipts from the notification service extension and serves the figures:
              POST /v1/receipts            open to devices (form or JSON); 202 once committed
              GET  /v1/pushes[/PUSH_ID]    admin (Authorization: Bearer TOKEN), JSON figures
              GET  /                       admin dashboard (Bearer header or the login form)
              GET  /healthz, /metrics      open; /metrics is Prometheus text

            Prints 'PORT n' first (useful with --port 0), then the URL and, when no token was
            given, a generated admin token (printed once). SIGINT/SIGTERM stop gracefully: no new
            connections, requests in flight finish, everything is committed, exit status 0.

            Example:
              richpush serve --port 8080 --db ./richpush.sqlite
              curl -i -d push_id=2018001 http://127.0.0.1:8080/v1/receipts
            """,
        options: [
            .value("host", "ADDRESS", help: "IPv4/IPv6 address to bind (default 127.0.0.1; 0.0.0.0 for all)."),
            .value("port", "PORT", help: "TCP port (default 8080; 0 picks a free port)."),
            .value("db", "PATH-or-URL", help: "SQLite file (default ./richpush.sqlite). A postgres:// URL\nis reserved for the PostgreSQL store (not built yet)."),
            .value("admin-token", "TOKEN", help: "Admin token for /v1/pushes and the dashboard\n(default: $RICHPUSH_ADMIN_TOKEN, else a generated one)."),
            .value("synchronous", "full|normal", help: "SQLite sync at each commit (default full: a 202 survives\nprocess kill and OS crash; normal: survives process kill)."),
            .value("threads", "N", help: "HTTP server threads (default: one per core, at least 2)."),
            .value("commit-linger", "MS", help: "Wait up to MS milliseconds (0…50) for just-answered clients\nto send again before a group commit, so one commit covers them\n(default 0 = at once; never longer than the last commit)."),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        if let extra = args.positionals.first {
            throw UsageError(command: "serve", message: "unexpected argument '\(extra)'")
        }
        let port = try args.integer("port", in: 0...65535) ?? 8080
        let threads = try args.integer("threads", in: 1...64)
        var synchronous = SQLiteStore.Synchronous.full
        if let raw = args.value("synchronous") {
            guard let parsed = SQLiteStore.Synchronous(raw) else {
                throw UsageError(command: "serve", message: "'--synchronous \(raw)' must be full or normal")
            }
            synchronous = parsed
        }
        var generated = false
        let token: String
        if let given = args.value("admin-token") ?? ProcessInfo.processInfo.environment["RICHPUSH_ADMIN_TOKEN"], !given.isEmpty {
            guard !given.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw UsageError(command: "serve", message: "the admin token must not contain spaces")
            }
            token = given
        } else {
            token = AdminAuthenticator.generateToken()
            generated = true
        }
        let location = StoreLocation.parse(args.value("db"))
        let store = try location.open(synchronous: synchronous)

        var configuration = ServerConfiguration(adminToken: token)
        configuration.host = args.value("host") ?? "127.0.0.1"
        configuration.port = port
        if let threads { configuration.threads = threads }
        if let raw = args.value("commit-linger") {
            guard let ms = Double(raw), ms.isFinite, (0...50).contains(ms) else {
                throw UsageError(command: "serve", message: "'--commit-linger \(raw)' must be a number of milliseconds from 0 to 50")
            }
            configuration.commitLinger = ms / 1000
        }
        let server = try StatisticsServer(configuration: configuration, store: store)

        let displayHost = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        var banner = "PORT \(server.port)\n"
        banner += "richpush serve: listening on http://\(displayHost):\(server.port) (store: \(store.path), synchronous=\(synchronous))\n"
        banner += "  receipts:  POST http://\(displayHost):\(server.port)/v1/receipts\n"
        banner += "  dashboard: http://\(displayHost):\(server.port)/\n"
        if generated {
            banner += "  admin token (generated, shown once; set RICHPUSH_ADMIN_TOKEN to keep one): \(token)\n"
        }
        FileHandle.standardOutput.write(Data(banner.utf8))

        let signalName = await waitForTermination()
        FileHandle.standardError.write(Data("richpush serve: \(signalName) received, finishing requests in flight…\n".utf8))
        try server.shutdown()
        FileHandle.standardError.write(Data("richpush serve: stopped cleanly; every acknowledged receipt is committed.\n".utf8))
        return 0
    }

    /// Waits for SIGINT or SIGTERM and returns its name.
    private static func waitForTermination() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let queue = DispatchQueue(label: "richpush.serve.signals")
            let resumed = ResumeOnce(continuation)
            var sources: [any DispatchSourceSignal] = []
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { resumed.resume(name) }
                source.resume()
                sources.append(source)
            }
            signal(SIGPIPE, SIG_IGN)
            SignalSources.keep(sources)
        }
    }
}
