import Foundation
import RichPushTestSupport

/// h2o (Debian's, HTTP/2 over TLS, one thread) standing in for APNs with a three-line mruby
/// handler: `POST /3/device/<token>` answers 200 with the request's `apns-id`; every request h2o
/// processed is a line of its access log. `http2-idle-timeout` closes an idle connection with
/// a GOAWAY (as APNs does on idle).
final class H2OServer: @unchecked Sendable {
    let directory: URL
    let certificate: SelfSignedCertificate
    let port: Int
    private let reservation: PortReservation
    private let process: ChildProcess

    /// Starts h2o.
    /// - Parameters:
    ///   - idleTimeout: `http2-idle-timeout`, seconds.
    ///   - maxConcurrentStreams: `http2-max-concurrent-requests-per-connection`.
    /// - Throws: when h2o cannot start.
    init(idleTimeout: Int = 10, maxConcurrentStreams: Int = 100) async throws {
        directory = try Fixtures.temporaryDirectory("h2o")
        certificate = try await SelfSignedCertificate(in: directory)
        reservation = try PortReservation()
        port = reservation.port
        let conf = """
            listen:
              port: \(port)
              host: 127.0.0.1
              ssl:
                certificate-file: \(certificate.certificate.path)
                key-file: \(certificate.key.path)
            num-threads: 1
            user: \(NSUserName())
            pid-file: \(directory.path)/h2o.pid
            error-log: \(directory.path)/error.log
            http2-idle-timeout: \(idleTimeout)
            http2-max-concurrent-requests-per-connection: \(maxConcurrentStreams)
            access-log:
              path: \(directory.path)/access.log
              format: "%U %s"
            hosts:
              default:
                paths:
                  /:
                    mruby.handler: |
                      Proc.new do |env|
                        [200, {"apns-id" => (env["HTTP_APNS_ID"] || "00000000-0000-0000-0000-000000000000")}, []]
                      end
            """
        try conf.write(to: directory.appendingPathComponent("h2o.conf"), atomically: true, encoding: .utf8)
        process = ChildProcess("/usr/bin/h2o", ["-c", directory.appendingPathComponent("h2o.conf").path])
        try process.launch()
        try await NginxHTTP2Server.waitForListener(port: port, process: process, log: directory.appendingPathComponent("error.log"))
    }

    var baseURL: String { "https://127.0.0.1:\(port)" }

    /// Requests h2o processed, per token.
    func perToken() -> [String: Int] { AccessLogCounts.perToken(directory.appendingPathComponent("access.log")) }

    /// Stops h2o and removes its files.
    func stop() async {
        await process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}
