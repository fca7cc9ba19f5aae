/// What `CurlHTTP2Transport` knows about one host (`scheme://host:port`): how many of its
/// requests are in libcurl's hands, whether the host has answered on its current connection, and
/// whether it went silent.
///
/// Why a window of our own in front of libcurl's multiplexing: Apple's APNs opens a connection
/// with `SETTINGS_MAX_CONCURRENT_STREAMS = 1` and raises it (to 1000) after the first answer.
/// libcurl 7.88 (Debian 12) opens streams before the server's SETTINGS arrive (it assumes 100
/// until then), and parks the requests that find the connection full as "pending", where their
/// `CURLOPT_TIMEOUT_MS` runs; handed 200 at once against a start-at-1 server, many of them
/// waited out the whole 30 s timeout after the limit had risen (issue 22, measured with
/// `Tests/Support/mock_apns.py --initial-streams 1`). So until the host has answered once on a connection
/// (its SETTINGS are then known to libcurl), only one request per allowed connection is handed
/// over; after that up to `maxConcurrentStreams`, and libcurl keeps to the server's value.
///
/// The same holds for every later connection: after a GOAWAY (APNs sends one on idle, on a bad
/// provider token, on shutdown) or a dropped connection, libcurl opens a new one, and until an
/// answer arrives on that new connection (told apart from the old one's last answers by the local
/// port) no further request is handed over. What libcurl already holds then (the streams above
/// the GOAWAY's last-stream-id, which libcurl sends again itself: REFUSED_STREAM) goes to the new
/// connection at once; against a server that starts at one stream those are beyond its limit
/// until its SETTINGS arrive (see docs/apns-connections.md).
struct HostStreamWindow {
    /// Requests of this host in libcurl's multi handle.
    var inFlight = 0
    /// A response arrived since the connection was (re)made: its SETTINGS are known.
    var answered = false
    /// libcurl opened a new connection that has not answered yet.
    var connecting = false
    /// The local port of the connection that answered last (`CURLINFO_LOCAL_PORT`).
    var answeredPort: Int?
    /// When the last response arrived.
    var lastAnswer: ContinuousClock.Instant?
    /// Until when requests fail at once because the host answered nothing (see `silence`).
    var silentUntil: ContinuousClock.Instant?
    /// Why the host is treated as silent, for the requests failed meanwhile.
    var silence = ""

    /// How many requests may be in libcurl's hands now.
    ///
    /// - Parameter configuration: the transport's bounds.
    /// - Returns: one per allowed connection before the first answer, else `maxConcurrentStreams`.
    func limit(_ configuration: TransportConfiguration) -> Int {
        answered ? max(1, configuration.maxConcurrentStreams) : max(1, configuration.maxConnectionsPerHost)
    }

    /// An idle connection may have been closed (APNs closes idle ones): after this long without
    /// a request in flight, the next one starts at one stream again, in seconds.
    static let idleRestart: Duration = .seconds(10)

    /// Counts one more request handed to libcurl at `now`.
    mutating func admit(at now: ContinuousClock.Instant) {
        if inFlight == 0, let lastAnswer, now - lastAnswer > Self.idleRestart { answered = false }
        inFlight += 1
    }

    /// libcurl opened a socket to the host: a new connection, whose SETTINGS are not known yet.
    mutating func connectionOpened() {
        answered = false
        connecting = true
    }

    /// A response arrived on the connection whose local port is `port`, at `now`. While a new
    /// connection is being made, only an answer on another connection than the last one that
    /// answered (the new one) opens the window again.
    mutating func answer(onPort port: Int, at now: ContinuousClock.Instant) {
        lastAnswer = now
        if connecting, let answeredPort, port == answeredPort { return }
        connecting = false
        answered = true
        answeredPort = port
    }

    /// Whether the host is in its silent period at `now`.
    func isSilent(at now: ContinuousClock.Instant) -> Bool {
        silentUntil.map { now < $0 } ?? false
    }

    /// The `scheme://host:port` part of an absolute URL (the key of a host's window).
    static func key(of url: String) -> Substring {
        guard let scheme = url.range(of: "://") else { return url[...] }
        let rest = url[scheme.upperBound...]
        return url[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex)]
    }
}
