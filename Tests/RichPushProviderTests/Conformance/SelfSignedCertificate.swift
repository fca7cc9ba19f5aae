import Foundation
import RichPushTestSupport

/// A throwaway self-signed P-256 certificate for 127.0.0.1 and localhost, made with the openssl
/// command line: the server's certificate and, passed as the CA file, the client's trust root.
struct SelfSignedCertificate {
    let certificate: URL
    let key: URL

    /// Makes the certificate in `directory`.
    /// - Throws: when openssl fails.
    init(in directory: URL) async throws {
        certificate = directory.appendingPathComponent("server.pem")
        key = directory.appendingPathComponent("server.key")
        let run = try await ChildProcess(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.path, "-out",
                certificate.path, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ]
        ).run(timeout: 30)
        guard run.status == 0 else { throw TestSupportError("openssl req failed: \(run.stderr)") }
    }
}
