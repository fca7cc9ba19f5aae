#if canImport(CNGHTTP2) && os(Linux)
import CNGHTTP2
import Foundation
import RichPushCore

/// The TLS settings every connection of one `HTTP2Client` shares (an OpenSSL `SSL_CTX`): TLS 1.2
/// or later, ALPN `h2` only, the server's certificate checked against the system trust store or
/// the configured CA file, and the client certificate for APNs certificate-based auth.
///
/// Built once, before any connection, so a wrong CA file or certificate fails at once with what
/// to fix. `@unchecked Sendable`: the context is only read after `init` (OpenSSL allows making
/// `SSL` objects from one context on any thread).
final class HTTP2TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    /// The client key's passphrase, for OpenSSL's password callback (freed with the context).
    private var passphrase: UnsafeMutablePointer<CChar>?

    /// Makes the context.
    ///
    /// - Parameter configuration: trust (`caFile`) and the client certificate.
    /// - Throws: `RichPushError` `tls_configuration` naming the setting and the fix when a file
    ///   cannot be used.
    init(configuration: TransportConfiguration) throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw RichPushError(code: .transport, message: "OpenSSL could not make a TLS context (\(Self.lastError()))")
        }
        self.context = context
        _ = richpush_ssl_ctx_set_min_tls12(context)
        _ = richpush_ssl_ctx_set_modes(context)
        _ = richpush_ssl_ctx_set_options(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        // ALPN: h2 only (RFC 9113 §3.2; APNs speaks nothing else).
        let alpn: [UInt8] = [2, 0x68, 0x32]
        _ = alpn.withUnsafeBufferPointer { SSL_CTX_set_alpn_protos(context, $0.baseAddress, UInt32($0.count)) }
        let names = configuration.settingNames
        if let caFile = configuration.caFile {
            // Only this CA, as libcurl's CAINFO did: a test server's or a proxy's.
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw RichPushError(
                    code: .tlsConfiguration,
                    message:
                        "\(names.caFile) \(caFile): OpenSSL cannot load it as PEM certificates (\(Self.lastError())); pass the CA that signed the server's certificate"
                )
            }
        } else if SSL_CTX_set_default_verify_paths(context) != 1 {
            throw RichPushError(
                code: .tlsConfiguration,
                message: "the system's trust store could not be loaded (\(Self.lastError())); install ca-certificates or pass \(names.caFile)")
        }
        if let certificate = configuration.clientCertificate {
            passphrase = try Self.useClientCertificate(certificate, in: context, names: names)
        }
        ERR_clear_error()
    }

    deinit {
        SSL_CTX_free(context)
        free(passphrase)
    }

    /// Loads the client certificate and its key into the context.
    /// - Returns: the passphrase copy the context's callback reads, if any (the caller frees it).
    private static func useClientCertificate(
        _ certificate: TransportConfiguration.ClientCertificate, in context: OpaquePointer, names: TransportSettingNames
    ) throws -> UnsafeMutablePointer<CChar>? {
        if certificate.type.uppercased() == "P12" {
            guard let data = FileManager.default.contents(atPath: certificate.certificateFile) else {
                throw RichPushError(code: .tlsConfiguration, message: "\(names.certificate) \(certificate.certificateFile): cannot be read")
            }
            var key: OpaquePointer?
            var cert: OpaquePointer?
            var chain: OpaquePointer?
            let parsed: Bool = data.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, let bio = BIO_new_mem_buf(base, Int32(clamping: raw.count)) else { return false }
                defer { BIO_free(bio) }
                guard let p12 = d2i_PKCS12_bio(bio, nil) else { return false }
                defer { PKCS12_free(p12) }
                return PKCS12_parse(p12, certificate.passphrase ?? "", &key, &cert, &chain) == 1
            }
            defer {
                if let key { EVP_PKEY_free(key) }
                if let cert { X509_free(cert) }
                if let chain { OPENSSL_sk_pop_free(chain, nil) }
            }
            guard parsed, let key, let cert else {
                throw RichPushError(
                    code: .tlsConfiguration,
                    message:
                        "\(names.certificate) \(certificate.certificateFile): not a PKCS#12 certificate, or the passphrase is wrong (\(lastError())); export the APNs certificate with its key as .p12 and pass its password"
                )
            }
            guard SSL_CTX_use_certificate(context, cert) == 1, SSL_CTX_use_PrivateKey(context, key) == 1, SSL_CTX_check_private_key(context) == 1
            else {
                throw RichPushError(
                    code: .tlsConfiguration,
                    message: "\(names.certificate) \(certificate.certificateFile): OpenSSL refused the certificate or its key (\(lastError()))")
            }
            if let chain {
                while let extra = OpaquePointer(OPENSSL_sk_shift(chain)) {
                    if richpush_ssl_ctx_add_chain_cert(context, extra) != 1 { X509_free(extra) }
                }
            }
            return nil
        }
        var copy: UnsafeMutablePointer<CChar>?
        if let passphrase = certificate.passphrase {
            // The context copies nothing: keep the passphrase alive as long as the context.
            copy = strdup(passphrase)
            SSL_CTX_set_default_passwd_cb_userdata(context, copy)
            SSL_CTX_set_default_passwd_cb(context) { buffer, size, _, userdata in
                guard let buffer, let userdata else { return 0 }
                let pass = userdata.assumingMemoryBound(to: CChar.self)
                let length = min(Int(size) - 1, strlen(pass))
                guard length >= 0 else { return 0 }
                memcpy(buffer, pass, length)
                buffer[length] = 0
                return Int32(length)
            }
        }
        guard SSL_CTX_use_certificate_chain_file(context, certificate.certificateFile) == 1 else {
            free(copy)
            throw RichPushError(
                code: .tlsConfiguration,
                message:
                    "\(names.certificate) \(certificate.certificateFile): not a PEM certificate OpenSSL can use (\(lastError())); pass the APNs certificate as PEM or .p12"
            )
        }
        let keyFile = certificate.keyFile ?? certificate.certificateFile
        guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1, SSL_CTX_check_private_key(context) == 1 else {
            free(copy)
            throw RichPushError(
                code: .tlsConfiguration,
                message:
                    "\(certificate.keyFile == nil ? names.certificate : names.certificateKey) \(keyFile): no private key matching the certificate, or the passphrase is wrong (\(lastError()))"
            )
        }
        return copy
    }

    /// OpenSSL's last error, as text (the queue is cleared).
    static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no detail" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
#endif
