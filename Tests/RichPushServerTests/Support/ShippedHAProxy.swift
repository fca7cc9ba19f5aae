import Foundation
import RichPushTestSupport

/// The shipped `deploy/haproxy/haproxy.cfg` started by a test: the sample servers of its two
/// backends replaced by the test's, listening on a reserved loopback port, in the foreground.
struct ShippedHAProxy {
    /// The sample servers each backend lists in the shipped file.
    static let sampleServers = "    server a 127.0.0.1:8081 check\n    server b 127.0.0.1:8082 check\n    server c 127.0.0.1:8083 check"

    /// The running HAProxy (stop it with SIGTERM).
    let process: ChildProcess
    /// The loopback port it listens on.
    let port: Int
    /// Holds `port` until HAProxy has bound it.
    let reservation: PortReservation
    /// How many backends had their sample servers replaced (the shipped file has two).
    let replacedBackends: Int

    /// Writes the configuration into `directory` and launches HAProxy (`-db`: foreground).
    ///
    /// - Parameters:
    ///   - servers: the `server …` lines of the `richpush` backend.
    ///   - dashboardServers: those of `richpush_dashboard`, when they differ.
    ///   - directory: where the configuration goes.
    /// - Throws: when the file cannot be read or written, or HAProxy cannot start.
    init(servers: String, dashboardServers: String? = nil, in directory: URL) throws {
        let shipped = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("deploy/haproxy/haproxy.cfg"), encoding: .utf8)
        let parts = shipped.components(separatedBy: Self.sampleServers)
        replacedBackends = parts.count - 1
        reservation = try PortReservation()
        port = reservation.port
        var joined = parts.first ?? ""
        for (index, part) in parts.dropFirst().enumerated() {
            joined += (index == 1 ? dashboardServers ?? servers : servers) + part
        }
        let config = joined.replacingOccurrences(of: "    bind :80\n", with: "    bind 127.0.0.1:\(port)\n")
        let file = directory.appendingPathComponent("haproxy.cfg")
        try config.write(to: file, atomically: true, encoding: .utf8)
        process = ChildProcess("/usr/sbin/haproxy", ["-db", "-f", file.path])
        try process.launch()
    }
}
