import Foundation
import RichPushTestSupport

/// The shipped `deploy/nginx/richpush.conf` started by a test: its upstream servers replaced by
/// the test's instances, listening on a free loopback port, everything nginx writes kept in the
/// test's directory.
struct ShippedNginx {
    /// The sample instances the shipped file lists in each upstream block.
    static let sampleServers =
        "    server 127.0.0.1:8081 max_fails=3 fail_timeout=10s;\n    server 127.0.0.1:8082 max_fails=3 fail_timeout=10s;\n    server 127.0.0.1:8083 max_fails=3 fail_timeout=10s;"

    /// The running nginx master (stop it with SIGTERM: the master takes its workers down with it).
    let process: ChildProcess
    /// The loopback port nginx listens on.
    let port: Int
    /// Holds `port` from its choice until nginx has bound it (keep this value alive until then:
    /// released earlier, another process could take the port first).
    let reservation: PortReservation
    /// How many upstream blocks had their sample servers replaced (the shipped file has two).
    let replacedUpstreams: Int

    /// Writes the configuration into `directory` and launches nginx in the foreground.
    ///
    /// - Parameters:
    ///   - upstreams: the `server …;` lines that replace the sample servers in every upstream block.
    ///   - dashboardUpstreams: the lines for the dashboard's upstream block (the second), when
    ///     they differ from `upstreams`.
    ///   - directory: where the configuration, pid, error log, the media cache and temporary files go.
    ///   - workerConnections: nginx's `worker_connections`.
    /// - Throws: when the shipped file cannot be read, a file cannot be written or nginx cannot start.
    init(upstreams: String, dashboardUpstreams: String? = nil, in directory: URL, workerConnections: Int) throws {
        let shipped = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("deploy/nginx/richpush.conf"), encoding: .utf8)
        let parts = shipped.components(separatedBy: Self.sampleServers)
        replacedUpstreams = parts.count - 1
        reservation = try PortReservation()
        port = reservation.port
        var joined = parts.first ?? ""
        for (index, part) in parts.dropFirst().enumerated() {
            joined += (index == 1 ? dashboardUpstreams ?? upstreams : upstreams) + part
        }
        let site = joined.replacingOccurrences(of: "    listen 80;", with: "    listen 127.0.0.1:\(port);")
            .replacingOccurrences(of: "/var/cache/nginx/richpush-media", with: directory.appendingPathComponent("media-cache").path)
        try site.write(to: directory.appendingPathComponent("richpush.conf"), atomically: true, encoding: .utf8)
        // Run as root (CI does), nginx's workers drop to `nobody`, which cannot write the media
        // cache inside a scratch folder made 0700 by `mktemp -d`: every /m/ request was a 500.
        // The workers keep the test's user instead (the directive is ignored when not root).
        let user = geteuid() == 0 ? "user root root;" : ""
        let main = """
            \(user)
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log warn;
            events { worker_connections \(workerConnections); }
            http {
              access_log off;
              client_body_temp_path \(directory.path)/body;
              proxy_temp_path \(directory.path)/proxy;
              fastcgi_temp_path \(directory.path)/fastcgi;
              uwsgi_temp_path \(directory.path)/uwsgi;
              scgi_temp_path \(directory.path)/scgi;
              include \(directory.path)/richpush.conf;
            }
            """
        try main.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process = ChildProcess("/usr/sbin/nginx", ["-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path, "-g", "daemon off;"])
        try process.launch()
    }
}
