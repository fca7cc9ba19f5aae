/// `POST /logout` (from this server's own pages): ends the session → `303` to `/login` with an
/// expired cookie.
struct LogoutEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .sessionForm(throttled: false) }
    var noStore: Bool { true }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        context.auth.endSession(cookie: request.header("Cookie"))
        let secure = context.client(request).overTLS || context.publicHTTPS
        return .empty(303, headers: [("Location", "/login"), ("Set-Cookie", AdminAuthenticator.logoutCookie(secure: secure))])
    }
}
