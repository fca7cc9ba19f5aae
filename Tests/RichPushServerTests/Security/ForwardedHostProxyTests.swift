import Foundation
import RichPushTestSupport
import Testing

/// The instances believe `X-Forwarded-Host` from a `--trusted-proxy` as the origin of admin
/// requests (issue 22, item 6). The shipped nginx must set it itself (HAProxy drops it), so a client's own value
/// (`Origin: evil` + `X-Forwarded-Host: evil` on `POST /login`) never passes the CSRF check.
@Suite("X-Forwarded-Host through the shipped nginx and HAProxy", .serialized)
struct ForwardedHostProxyTests {
    static let evil = "evil.example"

    @Test("POST /login with Origin and X-Forwarded-Host of another site: 403 through deploy/nginx/richpush.conf")
    func forgedForwardedHostThroughNginx() async throws {
        // As deploy/systemd/richpush@.service runs it: nginx on this host is the trusted proxy.
        let server = try await ServerProcess(extraArguments: ["--trusted-proxy", "127.0.0.1"])
        let directory = try Fixtures.temporaryDirectory("nginx-xfh")
        defer { try? FileManager.default.removeItem(at: directory) }

        // The attack works on an instance that gets the header unfiltered (the test connects
        // from 127.0.0.1, the trusted proxy's address): that is what nginx must prevent.
        let direct = try await server.client().post(
            "/login", form: "token=\(ServerProcess.token)", headers: ["Origin": "http://\(Self.evil)", "X-Forwarded-Host": Self.evil])
        #expect(direct.status == 303, "the instance trusts X-Forwarded-Host from its proxy; status \(direct.status)")

        // The shipped file, with this instance as both upstreams' only server and a free port.
        let started = try ShippedNginx(upstreams: "    server 127.0.0.1:\(server.port);", in: directory, workerConnections: 64)
        let nginx = started.process, port = started.port
        defer { withExtendedLifetime(started) {} }
        #expect(started.replacedUpstreams == 2, "both upstreams list the sample instances")
        // SIGTERM, not SIGKILL: the master takes its worker down with it.
        defer { if nginx.isRunning { kill(nginx.process.processIdentifier, SIGTERM) } }
        let front = HTTPTestClient(port: port)
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? await front.request("GET", "/healthz").status) == 200
            if !ready { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(ready, "nginx: \(nginx.standardError)")

        // The attack through nginx: refused.
        let forged = try await front.post(
            "/login", form: "token=\(ServerProcess.token)", headers: ["Origin": "http://\(Self.evil)", "X-Forwarded-Host": Self.evil])
        #expect(forged.status == 403, "status \(forged.status)")
        #expect(forged.headers["set-cookie"] == nil)
        // A forged X-Forwarded-Host with the real Origin changes nothing either: nginx's value wins.
        let real = "http://127.0.0.1:\(port)"
        let mixed = try await front.post("/login", form: "token=\(ServerProcess.token)", headers: ["Origin": real, "X-Forwarded-Host": Self.evil])
        #expect(mixed.status == 303, "status \(mixed.status)")
        // And the dashboard's own page still logs in.
        #expect(try await front.post("/login", form: "token=\(ServerProcess.token)", headers: ["Origin": real]).status == 303)

        await nginx.terminate(grace: 10)
        #expect(await server.terminate() == 0)
    }

    @Test("POST /login with Origin and X-Forwarded-Host of another site: 403 through deploy/haproxy/haproxy.cfg")
    func forgedForwardedHostThroughHAProxy() async throws {
        let server = try await ServerProcess(extraArguments: ["--trusted-proxy", "127.0.0.1"])
        let directory = try Fixtures.temporaryDirectory("haproxy-xfh")
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("deploy/haproxy/haproxy.cfg"), encoding: .utf8)
        let shipped = "    server a 127.0.0.1:8081 check\n    server b 127.0.0.1:8082 check\n    server c 127.0.0.1:8083 check"
        #expect(config.components(separatedBy: shipped).count == 3, "both backends list the sample instances")
        config = config.replacingOccurrences(of: shipped, with: "    server a 127.0.0.1:\(server.port) check")
        // Reserved until the end: no other process can take it before HAProxy binds it.
        let reservation = try PortReservation()
        defer { withExtendedLifetime(reservation) {} }
        let port = reservation.port
        #expect(config.contains("    bind :80\n"))
        config = config.replacingOccurrences(of: "    bind :80\n", with: "    bind 127.0.0.1:\(port)\n")
        let file = directory.appendingPathComponent("haproxy.cfg")
        try config.write(to: file, atomically: true, encoding: .utf8)
        // -db: stay in the foreground, so the test owns the process.
        let haproxy = ChildProcess("/usr/sbin/haproxy", ["-db", "-f", file.path])
        try haproxy.launch()
        defer { if haproxy.isRunning { kill(haproxy.process.processIdentifier, SIGTERM) } }
        let front = HTTPTestClient(port: port)
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? await front.request("GET", "/healthz").status) == 200
            if !ready { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(ready, "haproxy: \(haproxy.standardError)")

        let forged = try await front.post(
            "/login", form: "token=\(ServerProcess.token)", headers: ["Origin": "http://\(Self.evil)", "X-Forwarded-Host": Self.evil])
        #expect(forged.status == 403, "status \(forged.status)")
        #expect(forged.headers["set-cookie"] == nil)
        let real = "http://127.0.0.1:\(port)"
        #expect(try await front.post("/login", form: "token=\(ServerProcess.token)", headers: ["Origin": real, "X-Forwarded-Host": Self.evil]).status == 303)
        await haproxy.terminate(grace: 10)
        #expect(await server.terminate() == 0)
    }
}
