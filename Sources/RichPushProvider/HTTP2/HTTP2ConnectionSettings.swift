/// What every connection of one `HTTP2Client` keeps to, from its `TransportConfiguration`.
struct HTTP2ConnectionSettings: Sendable {
    /// Streams per connection at most (the server's `SETTINGS_MAX_CONCURRENT_STREAMS` too).
    var maxConcurrentStreams: Int
    /// Connections per endpoint.
    var connections: Int
    /// Seconds to connect (name lookup, TCP, TLS).
    var connectTimeout: Double
    /// Seconds a written request may wait for its answer before it is cancelled (`unknown`).
    var requestTimeout: Double
    /// Seconds a PING may wait for its acknowledgement before the connection counts as dead.
    var pingTimeout: Double
    /// Seconds without a byte, while requests are in flight, after which a PING checks the connection.
    var pingAfterSilence: Double
    /// Seconds an idle connection waits between keep-alive PINGs.
    var idlePingInterval: Double
    /// Answer-body bytes kept per request.
    var maximumResponseBodyBytes: Int
    /// Whether a client certificate is configured (for a handshake failure's hint).
    var hasClientCertificate: Bool
    /// What messages call the settings.
    var names: TransportSettingNames
    /// Where rare connection events are told (`TransportConfiguration.eventLog`).
    var eventLog: (@Sendable (String) -> Void)?

    /// The stream window the client advertises (`SETTINGS_INITIAL_WINDOW_SIZE`, bytes): answers
    /// of APNs and FCM are small; 1 MiB never holds one back.
    static let streamWindow = 1 << 20
    /// The connection window (bytes): 16 MiB, so thousands of answers in flight never wait for a
    /// WINDOW_UPDATE.
    static let connectionWindow = 16 << 20
    /// Seconds between a connection's checks (timeouts, PINGs).
    static let tickInterval = 0.25
    /// Seconds a closing connection reads after its GOAWAY, waiting for the server to close.
    static let linger = 5.0

    init(_ configuration: TransportConfiguration) {
        maxConcurrentStreams = max(1, configuration.maxConcurrentStreams)
        connections = min(64, max(1, configuration.connections))
        connectTimeout = max(0.1, configuration.connectTimeout)
        requestTimeout = max(0.1, configuration.requestTimeout)
        pingTimeout = max(0.1, configuration.pingTimeout)
        pingAfterSilence = max(0.05, configuration.pingTimeout / 5)
        idlePingInterval = max(1, configuration.idlePingInterval)
        maximumResponseBodyBytes = max(0, configuration.maximumResponseBodyBytes)
        hasClientCertificate = configuration.clientCertificate != nil
        names = configuration.settingNames
        eventLog = configuration.eventLog
    }
}
