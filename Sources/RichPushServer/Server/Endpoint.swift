import Foundation

/// One route's behaviour for one method: what admission needs to know before the body is read
/// (who may call, which body types, how large a body), and the answer to a complete request.
///
/// `respond(to:)` returns the answer or throws an `HTTPResponseError`; the HTTP layer sends it,
/// exactly once. Store work that may wait on the disk or the network runs on one of the store's
/// lanes (`StoreLanes`), never on the task's own thread.
protocol Endpoint: Sendable {
    /// Who may call.
    var access: EndpointAccess { get }
    /// The media types the body must have (checked before the body is read), or `nil` for any
    /// (the endpoint reads `Content-Type` itself).
    var contentTypes: [String]? { get }
    /// The largest body read, in bytes (a declared `Content-Length` over it is a `413` at once).
    var maximumBody: Int { get }
    /// Whether the answers are admin figures or pages, never to be cached (`Cache-Control:
    /// no-store` on every answer, refusals included).
    var noStore: Bool { get }
    /// Whether a refused credential is answered with the login page rather than JSON.
    var isPage: Bool { get }

    /// The `413` for a body over `maximumBody`.
    var tooLarge: HTTPResponseError { get }

    /// Counts a refusal made before the endpoint ran (`too_large`), for endpoints with their own
    /// counters (receipts).
    ///
    /// - Parameter reason: the metrics reason.
    func countRefusal(_ reason: String)

    /// Answers a complete request.
    ///
    /// - Parameter request: the request (its `pathParameter` set by the router).
    /// - Returns: the answer.
    /// - Throws: `HTTPResponseError` for a refusal.
    func respond(to request: ServerRequest) async throws -> ServerResponse
}

extension Endpoint {
    var contentTypes: [String]? { nil }
    var maximumBody: Int { 1_024 }
    var noStore: Bool { false }
    var isPage: Bool { false }
    var tooLarge: HTTPResponseError {
        HTTPResponseError(status: 413, code: "too_large", message: "the body is at most \(maximumBody) bytes here")
    }
    func countRefusal(_ reason: String) {}
}

/// Who may use an endpoint.
enum EndpointAccess: Sendable, Equatable {
    /// Anyone (devices, monitoring).
    case open
    /// Anyone; an `Authorization` header, when sent, is judged (and a wrong token throttled like
    /// any other), so the open endpoint is no way around the login limit.
    case openOrBearer
    /// The admin: Bearer token, or the session cookie (then non-GET needs a same-origin `Origin`).
    case admin
    /// The admin's scripts only: the Bearer token (the session cookie is not accepted).
    case adminBearer
    /// The session forms (`POST /login`, `POST /logout`): anyone, but the request must come from
    /// this server's own pages; `throttled` when it takes a token guess.
    case sessionForm(throttled: Bool)
}
