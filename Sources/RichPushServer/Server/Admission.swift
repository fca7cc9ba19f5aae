import Foundation

/// Judges a request from its line and headers before any body byte is read: a short chain of
/// checks, each refusing with an `HTTPResponseError`, driven by what the matched endpoint
/// declares — framing (`Content-Length` / `Transfer-Encoding`), the busy threshold, route and
/// method, credential (with the per-address throttle on wrong tokens), the same-origin rule for
/// cookie-authenticated changes, the body's type, and the body bound.
struct Admission: Sendable {
    let context: ServerContext
    let routes: RouteTable

    /// The endpoint a request goes to, and the most body bytes to read for it.
    struct Admitted {
        let endpoint: any Endpoint
        let maximumBody: Int
    }

    /// Runs the checks in order.
    ///
    /// - Parameter request: the request's line and headers.
    /// - Returns: the endpoint and body bound.
    /// - Throws: the refusal to answer without reading the body.
    func admit(_ request: ServerRequest) throws(HTTPResponseError) -> Admitted {
        let declared = try framing(request)
        if let problem = request.targetProblem {
            context.metrics.requestRefused("target")
            // Judged before the route: no-store, as an admin endpoint's refusals carry it.
            throw HTTPResponseError(status: 400, code: problem.code, message: problem.message, headers: [("Cache-Control", "no-store")])
        }
        try notBusy(request)
        let endpoint = try endpoint(request)
        try credential(request, endpoint: endpoint)
        try mediaType(request, endpoint: endpoint)
        if let declared, declared > UInt64(endpoint.maximumBody) {
            context.metrics.requestRefused("too_large")
            endpoint.countRefusal("too_large")
            throw endpoint.tooLarge
        }
        return Admitted(endpoint: endpoint, maximumBody: endpoint.maximumBody)
    }

    /// The declared body length (`RequestFraming`); ambiguous framing closes the connection.
    private func framing(_ request: ServerRequest) throws(HTTPResponseError) -> UInt64? {
        switch RequestFraming.declaredLength(
            contentLengths: request.headerValues("Content-Length"), transferEncodings: request.headerValues("Transfer-Encoding"))
        {
        case .success(let length):
            return length
        case .failure(var refusal):
            context.metrics.requestRefused("framing")
            refusal.headers.append(HTTPResponseError.Header(name: "Connection", value: "close"))
            throw refusal
        }
    }

    private func notBusy(_ request: ServerRequest) throws(HTTPResponseError) {
        let limits = context.configuration.limits
        guard request.openConnections >= limits.busyThreshold else { return }
        context.metrics.requestRefused("busy")
        throw HTTPResponseError(
            status: 503, code: "server_busy",
            message: "the server has too many open connections right now (\(limits.maximumConnections) at most); retry in a moment",
            headers: [("Retry-After", "1"), ("Connection", "close")])
    }

    private func endpoint(_ request: ServerRequest) throws(HTTPResponseError) -> any Endpoint {
        guard let (route, _) = routes.route(for: request.routingPath) else {
            throw HTTPResponseError(
                status: 404, code: "not_found",
                message: "no route for \(String(request.path.prefix(200))); see docs/server.md or GET /openapi.yaml (POST /v1/receipts, GET /v1/pushes, GET /)")
        }
        guard let endpoint = route.endpoint(request.routingMethod) else { throw .methodNotAllowed(route.methods) }
        return endpoint
    }

    private func credential(_ request: ServerRequest, endpoint: any Endpoint) throws(HTTPResponseError) {
        let auth = context.auth
        switch endpoint.access {
        case .open:
            return
        case .openOrBearer:
            guard let authorization = request.header("Authorization") else { return }
            let client = context.client(request)
            try notThrottled(client, page: false)
            if case .wrongToken = auth.credential(authorization: authorization, cookie: nil) { context.throttle.recordFailure(client.address) }
        case .admin, .adminBearer:
            let client = context.client(request)
            let authorization = request.header("Authorization")
            if authorization != nil { try notThrottled(client, page: false) }
            let cookie = endpoint.access == .admin ? request.header("Cookie") : nil
            switch auth.credential(authorization: authorization, cookie: cookie) {
            case .bearer:
                return
            case .session:
                if request.routingMethod != "GET" { try sameOrigin(request, client: client, page: false, form: false) }
            case .wrongToken:
                context.throttle.recordFailure(client.address)
                throw unauthorized(page: false)
            case .none:
                throw unauthorized(page: endpoint.isPage)
            }
        case .sessionForm(let throttled):
            let client = context.client(request)
            if throttled { try notThrottled(client, page: true) }
            try sameOrigin(request, client: client, page: true, form: true)
        }
    }

    private func sameOrigin(_ request: ServerRequest, client: ClientOrigin, page: Bool, form: Bool) throws(HTTPResponseError) {
        guard
            let refusal = context.origins.refusal(
                origin: request.header("Origin"), fetchSite: request.header("Sec-Fetch-Site"), client: client, sessionForm: form)
        else { return }
        context.metrics.requestRefused("cross_origin")
        throw HTTPResponseError(
            status: 403, code: "cross_origin", message: refusal, headers: [("Cache-Control", "no-store")],
            page: page ? LoginPage.render(error: refusal) : nil)
    }

    private func notThrottled(_ client: ClientOrigin, page: Bool) throws(HTTPResponseError) {
        guard let seconds = context.throttle.retryAfter(client.address) else { return }
        context.metrics.requestRefused("throttled")
        let message =
            "too many wrong admin tokens from this address; try again in \(seconds) s (at most \(LoginThrottle.defaultBurst) attempts, then one every \(Int(LoginThrottle.defaultRefillSeconds)) s)"
        throw HTTPResponseError(
            status: 429, code: "too_many_attempts", message: message,
            headers: page ? [("Retry-After", String(seconds)), ("Cache-Control", "no-store")] : [("Retry-After", String(seconds))],
            page: page ? LoginPage.render(error: message) : nil)
    }

    private func unauthorized(page: Bool) -> HTTPResponseError {
        context.metrics.requestRefused("unauthorized")
        if page {
            return HTTPResponseError(
                status: 401, code: "unauthorized", message: "sign in", headers: [("Cache-Control", "no-store")], page: LoginPage.render(error: nil))
        }
        return HTTPResponseError(
            status: 401, code: "unauthorized",
            message:
                "send the admin token as 'Authorization: Bearer TOKEN' (the server's setting: printed by richpush serve at start, or its --admin-token / RICHPUSH_ADMIN_TOKEN)",
            headers: [("WWW-Authenticate", "Bearer realm=\"richpush\"")])
    }

    private func mediaType(_ request: ServerRequest, endpoint: any Endpoint) throws(HTTPResponseError) {
        guard let accepted = endpoint.contentTypes else { return }
        let type = request.header("Content-Type").map(ReceiptDecoder.mediaType)
        guard let type, accepted.contains(type) else {
            context.metrics.requestRefused("media_type")
            throw HTTPResponseError(
                status: 415, code: "unsupported_media_type",
                message:
                    "\(request.routingMethod) \(request.path) takes a JSON body: send 'Content-Type: application/json' (got \(type.map { "'\($0.prefix(60))'" } ?? "none"))"
            )
        }
    }
}
