import Foundation
@_spi(RichPushInternal) import RichPushCore

#if canImport(COpenSSL)
import COpenSSL
#endif

extension TransportConfiguration {
    /// Checks the certificate files before any request: the CA file and the client certificate
    /// (and its key) must be readable and parse, so a wrong file stops at once with what to fix
    /// instead of failing every request (libcurl's 58 / 77) once per token.
    ///
    /// Messages name the files by `settingNames`.
    ///
    /// - Throws: `RichPushError` with code `io` for a file that cannot be read (`FileProblem`),
    ///   `provider_configuration` for one that does not parse, naming the file and the fix.
    public func checkCertificateFiles() throws {
        let names = settingNames
        if let caFile {
            let data = try FileProblem.read(caFile, what: "the CA file", option: names.caFile)
            guard Self.pemCertificateCount(data) > 0 else {
                throw RichPushError(
                    code: .providerConfiguration,
                    message:
                        "\(names.caFile) \(caFile): not a PEM certificate (expected -----BEGIN CERTIFICATE-----); pass the CA that signed the server's certificate"
                )
            }
        }
        guard let cert = clientCertificate else { return }
        let data = try FileProblem.read(cert.certificateFile, what: "the client certificate", option: names.certificate)
        if cert.type.uppercased() == "P12" {
            guard Self.pkcs12Opens(data, passphrase: cert.passphrase) else {
                throw RichPushError(
                    code: .providerConfiguration,
                    message:
                        "\(names.certificate) \(cert.certificateFile): not a PKCS#12 certificate, or the passphrase is wrong; export the APNs certificate with its key from Keychain Access as .p12 and pass its password (env RICHPUSH_APNS_CERT_PASSWORD)"
                )
            }
            return
        }
        guard Self.pemCertificateCount(data) > 0 else {
            throw RichPushError(
                code: .providerConfiguration,
                message:
                    "\(names.certificate) \(cert.certificateFile): not a PKCS#12 or PEM certificate (a PEM starts with -----BEGIN CERTIFICATE-----; a .p12 must end in .p12); an APNs auth key AuthKey_….p8 goes to \(names.authKey), not \(names.certificate)"
            )
        }
        let keyData = try cert.keyFile.map { try FileProblem.read($0, what: "the certificate's key", option: names.certificateKey) } ?? data
        guard Self.pemPrivateKeyOpens(keyData, passphrase: cert.passphrase) else {
            let message =
                cert.keyFile.map { "\(names.certificateKey) \($0): not a PEM private key, or the passphrase is wrong" }
                ?? "\(names.certificate) \(cert.certificateFile): no private key in the file (or the passphrase is wrong); pass the key with \(names.certificateKey) FILE"
            throw RichPushError(code: .providerConfiguration, message: message)
        }
    }

    private static func pemCertificateCount(_ data: Data) -> Int {
        #if canImport(COpenSSL)
        return withBIO(data, fallback: 0) { bio in
            var count = 0
            while let x509 = PEM_read_bio_X509(bio, nil, nil, nil) {
                X509_free(x509)
                count += 1
            }
            ERR_clear_error()
            return count
        }
        #else
        return String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") ? 1 : 0
        #endif
    }

    private static func pemPrivateKeyOpens(_ data: Data, passphrase: String?) -> Bool {
        #if canImport(COpenSSL)
        return withBIO(data, fallback: false) { bio in
            let key: OpaquePointer? = (passphrase ?? "").withCString { pass in
                PEM_read_bio_PrivateKey(bio, nil, nil, passphrase == nil ? nil : UnsafeMutableRawPointer(mutating: pass))
            }
            ERR_clear_error()
            guard let key else { return false }
            EVP_PKEY_free(key)
            return true
        }
        #else
        return String(decoding: data, as: UTF8.self).contains("PRIVATE KEY-----")
        #endif
    }

    private static func pkcs12Opens(_ data: Data, passphrase: String?) -> Bool {
        #if canImport(COpenSSL)
        return withBIO(data, fallback: false) { bio in
            guard let p12 = d2i_PKCS12_bio(bio, nil) else { ERR_clear_error(); return false }
            defer { PKCS12_free(p12) }
            var key: OpaquePointer?
            var cert: OpaquePointer?
            let ok = PKCS12_parse(p12, passphrase ?? "", &key, &cert, nil)
            if let key { EVP_PKEY_free(key) }
            if let cert { X509_free(cert) }
            ERR_clear_error()
            return ok == 1 && key != nil && cert != nil
        }
        #else
        return !data.isEmpty && data.first == 0x30
        #endif
    }

    #if canImport(COpenSSL)
    /// Runs `body` with a read-only memory BIO over `data` (`fallback` when there are no bytes).
    private static func withBIO<T>(_ data: Data, fallback: T, _ body: (OpaquePointer) -> T) -> T {
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0, let bio = BIO_new_mem_buf(base, Int32(clamping: raw.count)) else { return fallback }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }
    #endif
}
