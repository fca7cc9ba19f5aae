import Foundation

/// `POST /login` (from this server's own page; wrong tokens throttled per address): checks the
/// form's `token` and starts a 12 h session held in memory (the cookie holds its random id, never
/// the token) → `303` to `/`; a wrong token → `401` with the form again.
struct LoginEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .sessionForm(throttled: true) }
    var maximumBody: Int { 4_096 }
    var noStore: Bool { true }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let client = context.client(request)
        guard let token = Self.token(in: request.body), context.auth.matches(token) else {
            context.throttle.recordFailure(client.address)
            context.metrics.requestRefused("unauthorized")
            let message = "That token is not the admin token. It was printed when richpush serve started."
            throw HTTPResponseError(status: 401, code: "unauthorized", message: message, page: LoginPage.render(error: message))
        }
        let secure = client.overTLS || context.publicHTTPS
        return .empty(303, headers: [("Location", "/"), ("Set-Cookie", context.auth.startSession(secure: secure))])
    }

    /// The `token` field of a form body (`token=…`, `+` as space, percent-decoded; the last wins).
    static func token(in body: Data) -> String? {
        var token: String?
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if kv.count == 2, kv[0] == "token" {
                token = String(kv[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
        }
        return token
    }
}
