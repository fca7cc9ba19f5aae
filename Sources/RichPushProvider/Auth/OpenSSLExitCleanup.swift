#if canImport(COpenSSL)
import COpenSSL
#endif

/// Whether OpenSSL's `libcrypto` frees its global state from an `atexit` handler when the process
/// exits (its default, `OPENSSL_cleanup`).
///
/// A command-line tool turns that off first thing: `exit` runs the handler on the exiting thread
/// while other threads may still be in `libcrypto` — the HTTP/2 transport's thread freeing its TLS
/// connections or ending (OpenSSL's per-thread state is freed by a thread-exit destructor), a
/// cooperative-pool thread releasing a signing key. The two then free the same structures: a
/// crash in `libcrypto.so.3` or "double free or corruption" after the work is done. The kernel
/// reclaims the memory of an exiting process anyway; OpenSSL documents `OPENSSL_INIT_NO_ATEXIT`
/// for exactly this. Clients still close their transport before returning (`APNsClient.close()`),
/// so that a process that lives on (a server, a test) frees everything.
public enum OpenSSLExitCleanup {
    /// Tells `libcrypto` not to register its `atexit` cleanup. Must run before anything else in the
    /// process uses OpenSSL (libcurl included): the first initialisation decides, later calls
    /// cannot change it.
    ///
    /// - Returns: `true` when OpenSSL accepted the setting (always `true` where `libcrypto` is not
    ///   used, e.g. on Apple platforms with CryptoKit).
    @discardableResult
    public static func disable() -> Bool {
        #if canImport(COpenSSL)
        return OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
        #else
        return true
        #endif
    }
}
