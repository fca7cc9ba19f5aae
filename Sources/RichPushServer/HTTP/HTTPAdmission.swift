/// What the server's gate decides once a request's line and headers are in, before any body
/// byte is read.
public enum HTTPAdmission: Sendable {
    /// Read the body, at most `maximumBody` bytes (a longer one is discarded and the request
    /// flagged `bodyTooLarge`).
    case read(maximumBody: Int)
    /// Answer now without reading the body (the connection closes when a body was announced).
    case refuse(ServerResponse)
}
