import RichPushCore

extension RichPushError.Code {
    /// A signing key that cannot be read or is of the wrong kind (not EC P-256 / not RSA).
    public static let invalidKey = RichPushError.Code(rawValue: "invalid_key")
    /// Signing failed inside OpenSSL or CryptoKit.
    public static let signing = RichPushError.Code(rawValue: "signing")
    /// The payload failed the linter (an error finding) and was not sent.
    public static let payloadRejected = RichPushError.Code(rawValue: "payload_rejected")
    /// A request option that APNs would reject (collapse id over 64 bytes, token not hex, …).
    public static let invalidRequest = RichPushError.Code(rawValue: "invalid_request")
    /// The connection failed (DNS, TCP, TLS, HTTP/2) before a response arrived.
    public static let transport = RichPushError.Code(rawValue: "transport")
    /// The TLS setup cannot work (client certificate unusable: curl 58; server certificate not
    /// trusted: curl 60 / 77): every request fails the same way, so it is never retried.
    public static let tlsConfiguration = RichPushError.Code(rawValue: "tls_configuration")
    /// No connection to the host (refused, DNS, unreachable: curl 6 / 7): a batch gives up after
    /// a few tokens in a row get no connection at all.
    public static let connectionFailed = RichPushError.Code(rawValue: "connection_failed")
    /// The server did not process the request (it refused the stream, the stream was above a
    /// GOAWAY's last-stream-id, or the request was never written), again and again: sending it
    /// later is safe (RFC 9113 §8.7). The HTTP/2 client resends such a request itself first.
    public static let notProcessed = RichPushError.Code(rawValue: "not_processed")
    /// The request was written and no answer came (the connection was lost, the stream was reset,
    /// or the request timed out): the server may have processed it, so sending it again may
    /// deliver it twice. A notification is resent only when it carries an `apns-collapse-id`, or
    /// is a Live Activity update or end without an alert (the same content and timestamp: a second
    /// copy changes nothing on the device).
    public static let answerUnknown = RichPushError.Code(rawValue: "answer_unknown")
    /// APNs or FCM rejected the provider's configuration (key, team, topic, certificate):
    /// every further request would fail the same way, so the batch stops.
    public static let providerConfiguration = RichPushError.Code(rawValue: "provider_configuration")
    /// The OAuth2 token endpoint refused the service account.
    public static let oauth = RichPushError.Code(rawValue: "oauth")
    /// A feature this platform's build does not have.
    public static let unsupported = RichPushError.Code(rawValue: "unsupported")
}
