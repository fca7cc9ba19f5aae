/// `GET /login` (open): the form that takes the admin token and starts a session.
struct LoginFormEndpoint: Endpoint {
    var access: EndpointAccess { .open }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        .html(200, LoginPage.render(error: nil))
    }
}
