/// How a provider transport connects: trust, client certificate, HTTP/2 and its bounds.
public struct TransportConfiguration: Sendable {
    /// How HTTP/2 is negotiated.
    public struct HTTPVersion: Sendable, Hashable {
        let curlValue: Int
        /// HTTP/2 over TLS by ALPN; HTTP/1.1 for cleartext `http://` (FCM mocks, proxies).
        public static let http2OverTLS = HTTPVersion(curlValue: 4)  // CURL_HTTP_VERSION_2TLS
        /// HTTP/2 without negotiation, also over cleartext (`h2c` test servers, `nghttpd --no-tls`).
        public static let http2PriorKnowledge = HTTPVersion(curlValue: 5)  // CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
    }

    /// A client certificate for APNs certificate-based auth.
    public struct ClientCertificate: Sendable {
        /// The certificate file (PEM, or PKCS#12 `.p12`).
        public var certificateFile: String
        /// `PEM` or `P12`.
        public var type: String
        /// The private key file for a PEM certificate, when it is not in the same file.
        public var keyFile: String?
        /// The passphrase of the key or `.p12`, if any.
        public var passphrase: String?

        /// Describes a client certificate.
        /// - Parameters:
        ///   - certificateFile: the certificate path.
        ///   - type: `PEM` or `P12` (default: from the extension, `.p12` → `P12`).
        ///   - keyFile: the key path for PEM.
        ///   - passphrase: the passphrase.
        public init(certificateFile: String, type: String? = nil, keyFile: String? = nil, passphrase: String? = nil) {
            self.certificateFile = certificateFile
            self.type = type ?? (certificateFile.lowercased().hasSuffix(".p12") || certificateFile.lowercased().hasSuffix(".pfx") ? "P12" : "PEM")
            self.keyFile = keyFile
            self.passphrase = passphrase
        }
    }

    /// A PEM file of extra trust roots (a test CA, a proxy's CA); `nil` = the system store.
    public var caFile: String?
    /// The client certificate, for certificate-based auth.
    public var clientCertificate: ClientCertificate?
    /// HTTP/2 negotiation.
    public var httpVersion: HTTPVersion = .http2OverTLS
    /// Requests in flight at once over the connection (HTTP/2 streams). APNs advertises its own
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` (commonly up to 1000); the smaller of the two applies.
    public var maxConcurrentStreams: Int = 500
    /// Connections per host (1: everything is multiplexed on one connection).
    public var maxConnectionsPerHost: Int = 1
    /// HTTP/2 connections `HTTP2Client` opens to each host (1…64, default 1), requests spread over
    /// them. Throughput against a far APNs is bounded by connections × streams / round-trip time.
    public var connections: Int = 1
    /// Seconds to connect (TCP + TLS).
    public var connectTimeout: Double = 10
    /// Seconds a written request waits for its answer; then it is cancelled and ends
    /// `answer_unknown` (the server may have processed it).
    public var requestTimeout: Double = 30
    /// Seconds a connection may stay silent after a PING (no acknowledgement, no other byte)
    /// before it counts as dead (its requests in flight end `answer_unknown`). A connection with
    /// requests in flight that has received nothing for a fifth of this gets a PING (default 15 s:
    /// a PING after 3 s of silence; a dead connection is known within about 18 s, where TCP alone
    /// would take minutes).
    public var pingTimeout: Double = 15
    /// Seconds between keep-alive PINGs on an idle connection (default 60 s).
    public var idlePingInterval: Double = 60
    /// The most response-body bytes kept per request (default 16 KiB); the rest is read and
    /// dropped, and the response is marked `bodyTruncated`. APNs answers carry at most a short
    /// `{"reason", "timestamp"}`, FCM errors about a kilobyte: anything longer is a proxy's page,
    /// and 10 million of them must not fill memory.
    public var maximumResponseBodyBytes: Int = 16_384
    /// What messages call the settings above (the program's own names, or described in words).
    public var settingNames = TransportSettingNames.descriptive
    /// Called with one line, on the client's event-loop thread, for each rare connection event
    /// of `HTTP2Client`: a GOAWAY received (its error code, last-stream-id and debug data, where
    /// APNs puts its JSON `reason`), a connection dead after an unanswered PING. `nil` (the
    /// default) logs nothing; `richpush serve` writes them to standard error. Keep it cheap: it
    /// runs on the thread every connection shares.
    public var eventLog: (@Sendable (String) -> Void)?

    /// Makes the default configuration: system trust store, HTTP/2 over TLS, one connection,
    /// at most 500 concurrent streams.
    public init() {}
}
