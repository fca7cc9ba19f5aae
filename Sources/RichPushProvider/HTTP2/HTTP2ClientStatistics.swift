/// What an `HTTP2Client` has done so far: connections, answers, and the requests that did not
/// end with an answer, by why. Read with `HTTP2Client.statistics`.
public struct HTTP2ClientStatistics: Sendable, Equatable {
    /// TCP connections made.
    public var connectionsOpened = 0
    /// Requests that ended with an answer (any status).
    public var answered = 0
    /// Requests the server did not process (refused, above a GOAWAY's last-stream-id, never
    /// written) that were queued again and sent on a connection at once; each time counts.
    public var resent = 0
    /// Requests that ended `not_processed` after being refused too often (`HTTP2HostPool.maximumResends`).
    public var notProcessed = 0
    /// Requests that ended `answer_unknown`: written, then the connection was lost, the stream
    /// was reset, or no answer came in time.
    public var unknown = 0
    /// GOAWAY frames received.
    public var goawaysReceived = 0
    /// The last GOAWAY: its error code name, last-stream-id, and debug data (Apple sends a JSON
    /// `{"reason": …}` there), e.g. `NO_ERROR last-stream-id 1999 {"reason":"Shutdown"}`.
    public var lastGoaway: String?
    /// PING frames sent (liveness of a silent connection, keep-alive of an idle one).
    public var pingsSent = 0
    /// Connections given up because a PING went unanswered.
    public var pingTimeouts = 0
    /// RST_STREAM frames sent: only for a request that timed out (never for one whose answer
    /// ended, so a server's rapid-reset protection never counts a normal request).
    public var resetsSent = 0

    /// No activity yet.
    public init() {}

    /// What happened on the connections beyond requests and answers, in words, or `nil` when
    /// nothing did: `3 GOAWAYs from the server (last: NO_ERROR last-stream-id 1999), 12 requests
    /// it had not processed sent again, 2 answers lost (unknown), 1 connection dead (no PING answer)`.
    public var eventsDescription: String? {
        var parts: [String] = []
        if goawaysReceived > 0 {
            parts.append("\(goawaysReceived) GOAWAY\(goawaysReceived == 1 ? "" : "s") from the server\(lastGoaway.map { " (last: \($0))" } ?? "")")
        }
        if resent > 0 { parts.append("\(resent) request\(resent == 1 ? "" : "s") it had not processed sent again") }
        if notProcessed > 0 { parts.append("\(notProcessed) refused too often (not processed)") }
        if unknown > 0 { parts.append("\(unknown) answer\(unknown == 1 ? "" : "s") lost (unknown)") }
        if pingTimeouts > 0 { parts.append("\(pingTimeouts) connection\(pingTimeouts == 1 ? "" : "s") dead (no PING answer)") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
