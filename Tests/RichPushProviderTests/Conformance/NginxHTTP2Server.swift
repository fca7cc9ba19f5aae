import Foundation
import RichPushTestSupport

/// nginx (Debian's, HTTP/2 over TLS) standing in for APNs: `POST /3/device/<token>` answers 200
/// with an `apns-id`, and every request nginx processed is a line of its access log. Its own
/// connection rules apply: `keepalive_requests` (after that many requests a connection gets a
/// graceful GOAWAY and later streams `REFUSED_STREAM`; default 1,000) and
/// `http2_max_concurrent_streams` (default 128).
final class NginxHTTP2Server: @unchecked Sendable {
    let directory: URL
    let certificate: SelfSignedCertificate
    let port: Int
    private let reservation: PortReservation
    private let process: ChildProcess

    /// Starts nginx in the foreground.
    /// - Parameters:
    ///   - keepaliveRequests: `keepalive_requests`.
    ///   - maxConcurrentStreams: `http2_max_concurrent_streams`.
    /// - Throws: when nginx cannot start.
    init(keepaliveRequests: Int = 1000, maxConcurrentStreams: Int = 128) async throws {
        directory = try Fixtures.temporaryDirectory("nginx-h2")
        certificate = try await SelfSignedCertificate(in: directory)
        reservation = try PortReservation()
        port = reservation.port
        let d = directory.path
        let conf = """
            worker_processes 1;
            pid \(d)/nginx.pid;
            error_log \(d)/error.log warn;
            events { worker_connections 1024; }
            http {
              log_format paths '$request_uri $status';
              access_log \(d)/access.log paths;
              client_body_temp_path \(d)/body;
              proxy_temp_path \(d)/proxy;
              fastcgi_temp_path \(d)/fastcgi;
              uwsgi_temp_path \(d)/uwsgi;
              scgi_temp_path \(d)/scgi;
              keepalive_requests \(keepaliveRequests);
              http2_max_concurrent_streams \(maxConcurrentStreams);
              server {
                listen 127.0.0.1:\(port) ssl http2;
                ssl_certificate \(certificate.certificate.path);
                ssl_certificate_key \(certificate.key.path);
                location /3/device/ {
                  add_header apns-id $request_id always;
                  return 200;
                }
              }
            }
            """
        try conf.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process = ChildProcess("/usr/sbin/nginx", ["-p", d, "-c", directory.appendingPathComponent("nginx.conf").path, "-g", "daemon off;"])
        try process.launch()
        try await Self.waitForListener(port: port, process: process, log: directory.appendingPathComponent("error.log"))
    }

    var baseURL: String { "https://127.0.0.1:\(port)" }

    /// Requests nginx processed, per token.
    func perToken() -> [String: Int] { AccessLogCounts.perToken(directory.appendingPathComponent("access.log")) }

    /// Stops nginx (SIGTERM: the master takes its worker down with it) and removes its files.
    func stop() async {
        await process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Waits until something accepts connections on `port` (60 s at most).
    static func waitForListener(port: Int, process: ChildProcess, log: URL) async throws {
        for _ in 0..<600 {
            if LoopbackPort.accepts(port) { return }
            if !process.isRunning {
                throw TestSupportError("the server exited: \(process.standardError) \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw TestSupportError("nothing listens on port \(port) after 60 s: \(process.standardError)")
    }
}
