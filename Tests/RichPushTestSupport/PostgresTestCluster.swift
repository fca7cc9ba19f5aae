import CLibPQ
import Foundation

/// A throwaway PostgreSQL cluster for tests: `initdb` into a temporary directory, `pg_ctl start`
/// on a free loopback port (its Unix socket in the same directory), stopped and removed after.
///
/// - One cluster per test process (`shared()`), made on first use; each test takes a fresh
///   database of its own (`makeDatabase()`, ~50 ms), so tests run in parallel and cheaply.
///   Tests that stop and restart PostgreSQL make a cluster of their own (`init(label:)`).
/// - `initdb` and `pg_ctl` refuse to run as root: as root they run through `runuser` as the
///   `postgres` user (Debian's `postgresql` package makes it), else as `nobody`.
/// - Binaries: `$RICHPUSH_PG_BIN`, else the newest `/usr/lib/postgresql/<version>/bin` (Debian),
///   else `pg_config --bindir`, else `PATH`. `scripts/install-deps.sh` installs `postgresql`.
/// - Settings: `fsync=off` and `full_page_writes=off` (the data lives in a temporary directory,
///   on tmpfs when there is one: OS-crash safety is not what these tests check; commit
///   semantics, `synchronous_commit=on`, locks and crashes of RichPush are the real thing).
/// - Cleanup: `stop()` / `destroy()`; at process exit every cluster still running gets SIGQUIT
///   (immediate shutdown) and its directory is removed; a watchdog shell does the same within a
///   second if the test process dies without running exit handlers (a crash, SIGKILL).
public final class PostgresTestCluster: @unchecked Sendable {
    /// The TCP port on 127.0.0.1.
    public private(set) var port: Int
    /// The cluster's directory (data, socket, log).
    public let directory: URL
    /// The superuser (trust authentication on 127.0.0.1 and the socket).
    public static let user = "richpush"
    private let bin: URL
    private let lock = NSLock()
    private var admin: OpaquePointer?
    private var running = false
    /// The cluster's port, held while it lives (see `start()`).
    private var reserved: PortReservation?
    /// Whether the cluster ever started (on `reserved`'s port).
    private var started = false

    private var dataDirectory: URL { directory.appendingPathComponent("data") }
    private var socketDirectory: URL { directory.appendingPathComponent("socket") }
    private var logFile: URL { directory.appendingPathComponent("postgres.log") }

    /// The cluster every test of this process shares (made on first call).
    public static func shared() async throws -> PostgresTestCluster {
        try await SharedCluster.instance.get()
    }

    /// Makes and starts a cluster of its own.
    ///
    /// - Parameter label: a word for the directory name.
    /// - Throws: `TestSupportError` with initdb's or pg_ctl's output when the cluster cannot start.
    public init(label: String = "cluster") async throws {
        bin = try Self.binaries()
        let base = FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        directory = URL(fileURLWithPath: base).appendingPathComponent("richpush-pg-\(label)-\(UUID().uuidString.prefix(8))")
        port = 0
        try FileManager.default.createDirectory(at: socketDirectory, withIntermediateDirectories: true)
        if let owner = Self.serverUser {
            for path in [directory, socketDirectory] {
                try FileManager.default.setAttributes([.ownerAccountName: owner, .posixPermissions: 0o700], ofItemAtPath: path.path)
            }
        }
        Registry.shared.add(self)
        let initdb = try await Self.runAsServerUser(
            bin.appendingPathComponent("initdb").path,
            ["-D", dataDirectory.path, "-U", Self.user, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]
        )
        guard initdb.status == 0 else { throw TestSupportError("initdb failed (\(initdb.status)): \(initdb.stderr)\(initdb.stdout)") }
        try Self.watchdog(directory: directory)
        try await start()
    }

    /// Starts the cluster (again), on its port when it had one, else on a free one.
    ///
    /// The port stays reserved (`PortReservation`) for the cluster's life: while it is stopped
    /// no other process can take it, so a restart is on the same port (the URLs tests and
    /// servers hold stay right) and its connections are refused meanwhile, as for a database
    /// that is down.
    ///
    /// - Throws: `TestSupportError` with pg_ctl's output and the server log.
    public func start() async throws {
        var lastFailure = ""
        for attempt in 0..<5 {
            let candidate = try lock.withLock { () throws -> Int in
                // A first start that failed on its port tries a new one; a restart keeps its port.
                if reserved == nil || (attempt > 0 && !started) { reserved = try PortReservation() }
                guard let reserved else { throw TestSupportError("no port reserved") }
                return reserved.port
            }
            let options = [
                "-p \(candidate)", "-k \(socketDirectory.path)", "-c listen_addresses=127.0.0.1", "-c fsync=off",
                "-c full_page_writes=off", "-c synchronous_commit=on", "-c max_connections=300", "-c shared_buffers=32MB",
                "-c log_min_messages=warning", "-c log_min_error_statement=panic",
            ].joined(separator: " ")
            let result = try await Self.runAsServerUser(
                bin.appendingPathComponent("pg_ctl").path,
                ["-D", dataDirectory.path, "-l", logFile.path, "-w", "-t", "60", "-o", options, "start"]
            )
            if result.status == 0 {
                lock.withLock {
                    port = candidate
                    running = true
                    started = true
                }
                return
            }
            lastFailure = "pg_ctl start on port \(candidate) failed (\(result.status)): \(result.stdout) \(result.stderr)\nlog: \(log.suffix(2_000))"
        }
        throw TestSupportError(lastFailure)
    }

    /// Stops the cluster (`pg_ctl stop -m fast`: connections are closed at once), keeping its data.
    ///
    /// - Throws: `TestSupportError` when pg_ctl fails.
    public func stop() async throws {
        lock.withLock {
            if let admin { PQfinish(admin) }
            admin = nil
        }
        let result = try await Self.runAsServerUser(
            bin.appendingPathComponent("pg_ctl").path, ["-D", dataDirectory.path, "-m", "fast", "-w", "-t", "60", "stop"])
        guard result.status == 0 else { throw TestSupportError("pg_ctl stop failed (\(result.status)): \(result.stderr)") }
        lock.withLock { running = false }
    }

    /// Stops the cluster at once and removes its directory, on a background thread (nothing
    /// waits; safe in `defer`).
    public func destroy() {
        lock.withLock {
            if let admin { PQfinish(admin) }
            admin = nil
            running = false
        }
        Registry.shared.remove(self)
        let directory = self.directory
        let thread = Thread { Self.shutDownNow(directory: directory) }
        thread.name = "destroy-cluster"
        thread.start()
    }

    /// The server log so far.
    public var log: String { String(decoding: (try? Data(contentsOf: logFile)) ?? Data(), as: UTF8.self) }

    /// A URL for database `name`, e.g. `postgres://richpush@127.0.0.1:54321/rp_…`.
    public func url(database name: String) -> String {
        "postgres://\(Self.user)@127.0.0.1:\(port)/\(name)"
    }

    /// Creates an empty database for one test (on a thread of its own: `CREATE DATABASE` takes
    /// tens of milliseconds).
    ///
    /// - Returns: the database (its URL; dropped by `drop()` or when released).
    /// - Throws: `TestSupportError` with the server's message.
    public func makeDatabase() async throws -> PostgresTestDatabase {
        let name = "rp_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        _ = try await BlockingWork.run("create-database") { try self.executeNow("CREATE DATABASE \(name)") }
        return PostgresTestDatabase(cluster: self, name: name)
    }

    /// Runs SQL on the `postgres` maintenance database, or on `database` (on a thread of its own).
    ///
    /// - Parameters:
    ///   - sql: the statement(s).
    ///   - database: another database of the cluster (a connection of its own).
    /// - Returns: the first column of the result's rows (NULL as `nil`).
    /// - Throws: `TestSupportError` with the server's message.
    @discardableResult
    public func execute(_ sql: String, database: String? = nil) async throws -> [String?] {
        try await BlockingWork.run("cluster-sql") { try self.executeNow(sql, database: database) }
    }

    /// `execute(_:database:)` on the calling thread (one admin connection, kept open).
    @discardableResult
    func executeNow(_ sql: String, database: String? = nil) throws -> [String?] {
        try lock.withLock {
            if let database {
                let connection = try connect(database)
                defer { PQfinish(connection) }
                return try Self.run(sql, on: connection)
            }
            if admin == nil || PQstatus(admin) != CONNECTION_OK {
                if let admin { PQfinish(admin) }
                admin = try connect("postgres")
            }
            guard let admin else { throw TestSupportError("no admin connection") }
            return try Self.run(sql, on: admin)
        }
    }

    private func connect(_ database: String) throws -> OpaquePointer {
        guard let connection = PQconnectdb("host=127.0.0.1 port=\(port) user=\(Self.user) dbname=\(database) connect_timeout=10") else {
            throw TestSupportError("PQconnectdb returned nil")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw TestSupportError("cannot connect to the test cluster on port \(port): \(message)")
        }
        return connection
    }

    private static func run(_ sql: String, on connection: OpaquePointer) throws -> [String?] {
        guard let result = PQexec(connection, sql) else { throw TestSupportError("PQexec returned nil: \(String(cString: PQerrorMessage(connection)))") }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw TestSupportError("\(sql.prefix(80)): \(String(cString: PQresultErrorMessage(result)))")
        }
        return (0..<PQntuples(result)).map { row in
            PQgetisnull(result, row, 0) == 1 ? nil : String(cString: PQgetvalue(result, row, 0))
        }
    }

    // MARK: Processes

    /// The user the server runs as when the tests run as root (`nil` when not root).
    static let serverUser: String? = {
        guard geteuid() == 0 else { return nil }
        return getpwnam("postgres") != nil ? "postgres" : "nobody"
    }()

    /// Runs a PostgreSQL program, through `runuser -u USER --` when running as root.
    /// (`DaemonSpawn`: `pg_ctl start` leaves the server running, which Foundation's `Process`
    /// would take for the program itself still running.)
    static func runAsServerUser(_ program: String, _ arguments: [String]) async throws -> ChildProcess.Finished {
        if let user = serverUser {
            return try await DaemonSpawn.run("/usr/sbin/runuser", ["-u", user, "--", program] + arguments, timeout: 120)
        }
        return try await DaemonSpawn.run(program, arguments, timeout: 120)
    }

    /// The folder holding initdb and pg_ctl.
    static func binaries() throws -> URL {
        let fm = FileManager.default
        if let given = ProcessInfo.processInfo.environment["RICHPUSH_PG_BIN"], fm.isExecutableFile(atPath: given + "/initdb") {
            return URL(fileURLWithPath: given)
        }
        let debian = "/usr/lib/postgresql"
        let versions = ((try? fm.contentsOfDirectory(atPath: debian)) ?? []).compactMap(Int.init).sorted(by: >)
        for version in versions where fm.isExecutableFile(atPath: "\(debian)/\(version)/bin/initdb") {
            return URL(fileURLWithPath: "\(debian)/\(version)/bin")
        }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") where fm.isExecutableFile(atPath: "\(dir)/initdb") {
            return URL(fileURLWithPath: String(dir))
        }
        throw TestSupportError(
            "PostgreSQL's initdb was not found (looked in $RICHPUSH_PG_BIN, /usr/lib/postgresql/*/bin, PATH); run scripts/install-deps.sh (Debian package postgresql)"
        )
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (bound to 0, read, released).
    ///
    /// Racy: any process may take it before the caller binds it. Hold a `PortReservation`
    /// instead while a server is to bind the port, or while a test needs it to refuse connections.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket() failed") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw TestSupportError("cannot bind a free port") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// A shell that waits for this process to end, then shuts the cluster down and removes it.
    private static func watchdog(directory: URL) throws {
        let pidFile = directory.appendingPathComponent("data/postmaster.pid").path
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            pid=$(head -n 1 '\(pidFile)' 2>/dev/null) && [ -n "$pid" ] && kill -QUIT "$pid" 2>/dev/null
            sleep 2; rm -rf '\(directory.path)'
            """
        let child = ChildProcess("/bin/sh", ["-c", script])
        try child.launch()
        Registry.shared.keep(child)
    }

    /// SIGQUIT to the postmaster (immediate shutdown), wait for it to go (up to 10 s), remove
    /// the directory. Safe at process exit (no Foundation `Process`, no async).
    static func shutDownNow(directory: URL) {
        let pidFile = directory.appendingPathComponent("data/postmaster.pid")
        if let text = try? String(contentsOf: pidFile, encoding: .utf8),
            let pid = text.split(separator: "\n").first.flatMap({ Int32($0.trimmingCharacters(in: .whitespaces)) }), pid > 0
        {
            kill(pid, SIGQUIT)
            for _ in 0..<1_000 where kill(pid, 0) == 0 { usleep(10_000) }
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// One database of a `PostgresTestCluster`, dropped by `drop()` or when released.
public final class PostgresTestDatabase: @unchecked Sendable {
    /// The cluster.
    public let cluster: PostgresTestCluster
    /// The database name.
    public let name: String
    private let lock = NSLock()
    private var dropped = false

    init(cluster: PostgresTestCluster, name: String) {
        self.cluster = cluster
        self.name = name
    }

    /// `postgres://richpush@127.0.0.1:PORT/NAME`.
    public var url: String { cluster.url(database: name) }

    /// Runs SQL in this database (a connection of its own, on a thread of its own).
    ///
    /// - Returns: the first column of each row.
    @discardableResult
    public func execute(_ sql: String) async throws -> [String?] {
        try await cluster.execute(sql, database: name)
    }

    /// Drops the database (closing its connections), on a background thread: nothing waits.
    public func drop() {
        let first = lock.withLock {
            defer { dropped = true }
            return !dropped
        }
        guard first else { return }
        let cluster = self.cluster, name = self.name
        let thread = Thread { _ = try? cluster.executeNow("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        thread.name = "drop-database"
        thread.start()
    }

    deinit { drop() }
}

/// The process's shared cluster, made once.
private actor SharedCluster {
    static let instance = SharedCluster()
    private var task: Task<PostgresTestCluster, any Error>?

    func get() async throws -> PostgresTestCluster {
        if let task { return try await task.value }
        let made = Task { try await PostgresTestCluster(label: "shared") }
        task = made
        return try await made.value
    }
}

/// Clusters still running at exit, and the watchdog shells (kept alive for the whole process).
private final class Registry: @unchecked Sendable {
    static let shared = Registry()
    private let lock = NSLock()
    private var directories: [ObjectIdentifier: URL] = [:]
    private var watchdogs: [ChildProcess] = []

    init() {
        atexit {
            for directory in Registry.shared.remaining() { PostgresTestCluster.shutDownNow(directory: directory) }
        }
    }

    func add(_ cluster: PostgresTestCluster) { lock.withLock { directories[ObjectIdentifier(cluster)] = cluster.directory } }
    func remove(_ cluster: PostgresTestCluster) { lock.withLock { _ = directories.removeValue(forKey: ObjectIdentifier(cluster)) } }
    func keep(_ child: ChildProcess) { lock.withLock { watchdogs.append(child) } }
    func remaining() -> [URL] { lock.withLock { Array(directories.values) } }
}
