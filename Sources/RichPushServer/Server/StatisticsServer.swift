import Foundation
import RichPushCore

/// The statistics server: receipts in (`POST /v1/receipts`), figures out (`GET /v1/pushes`,
/// the dashboard at `/`), plus `/healthz` and `/metrics`.
///
/// Routes:
/// - `POST /v1/receipts` (open): form or JSON receipt → `202` after COMMIT, `400` naming the
///   field (ids must be printable: `IdentifierRule`), `415` for another body type (multipart, XML,
///   JSON sent as a form), `413` over 8 KB, `503` when the store failed.
/// - `POST /v1/pushes` (admin, `application/json`): lint, send through APNs or FCM to the given
///   tokens and to the devices of the given `user_ids`, skipping tokens known inactive or bad;
///   record `sent` / `accepted` / `skipped` and each token's outcome; 200 with per-token results,
///   400 naming the field or with the lint findings, 413 over 10,000 tokens or 1 MB, 502 when a
///   provider refused the server's key/team/topic/service account, 503 without settings for the
///   provider needed.
/// - `POST /v1/pushes/{push_id}/sends` (admin, Bearer only): record the sends of a push another
///   system sent (counts or per-token outcomes), idempotent per `batch_id`; 200, 409 for a
///   `batch_id` recorded with other figures.
/// - `POST /v1/devices` (open to apps; a `user_id` needs the admin Bearer token or a valid
///   `user_hash`), `DELETE /v1/devices/{token}` (open: whoever holds the token): the token lifecycle.
/// - `GET /v1/pushes` (admin): a page of JSON figures (`limit`, `prefix`, `from`, `to`, `after`,
///   `before`); `GET /v1/pushes/{push_id}` (admin): one push.
/// - `GET /` (admin, Bearer or session cookie): the dashboard (paging, push-id search, date
///   range); `GET /pushes/{push_id}`: one push's page; `GET /login`, `POST /login` (a 12 h session
///   in memory, the cookie holds its random id, never the token), `POST /logout`.
/// - `GET /healthz` (open): `200 {"status":"ok"}`, or `503 {"status":"unavailable","reason":…}`
///   while the store's database is unreachable (PostgreSQL); `GET /metrics` (open).
///
/// Every request is judged from its line and headers before its body is read (`admit`): framing
/// (`Content-Length` / `Transfer-Encoding`), the busy threshold, the route and method, the admin
/// token or session (with the per-address throttle on wrong tokens), the same-origin rule for
/// cookie-authenticated changes, the content type, and the route's body bound.
public final class StatisticsServer: @unchecked Sendable {
    /// The store behind the server.
    public let store: any ReceiptStore & StatisticsStore
    /// The counters behind `/metrics`.
    public let metrics = ServerMetrics()
    private let configuration: ServerConfiguration
    private let auth: AdminAuthenticator
    private let throttle = LoginThrottle()
    private let origins: OriginPolicy
    private let trustedProxies: Set<String>
    private let publicHTTPS: Bool
    private let writer: ReceiptWriter
    private let sender: PushSender?
    /// Device registrations and recorded sends are written here, off the server's threads.
    private let storeWrites = DispatchQueue(label: "richpush.server.store-writes")
    private var http: HTTPServer?
    private let stopLock = NSLock()
    private var stopped = false
    private let logLock = NSLock()
    private var lastStoreLog = Date.distantPast

    /// The bound port.
    public var port: Int { http?.port ?? 0 }

    /// The Firebase project FCM sends go to, when FCM is configured.
    public var fcmProjectID: String? { sender?.fcmProjectID }

    /// Starts the writer thread and the HTTP server.
    ///
    /// - Parameters:
    ///   - configuration: host, port, token, limits, bounds.
    ///   - store: where receipts go.
    /// - Throws: `RichPushError` `listen` when the address cannot be bound; `invalid_key`, `io`
    ///   when the APNs key or CA file cannot be read.
    public init(configuration: ServerConfiguration, store: any ReceiptStore & StatisticsStore) throws {
        self.configuration = configuration
        self.store = store
        self.auth = AdminAuthenticator(token: configuration.adminToken)
        self.origins = OriginPolicy(publicURL: configuration.publicURL)
        self.trustedProxies = Set(configuration.trustedProxies.map(ClientOrigin.normalized))
        self.publicHTTPS = configuration.publicURL?.lowercased().hasPrefix("https://") == true
        if configuration.apns != nil || configuration.fcm != nil {
            self.sender = try PushSender(settings: configuration.apns, fcm: configuration.fcm, apnsMissing: configuration.apnsMissing, store: store)
        } else {
            self.sender = nil
        }
        let metrics = self.metrics
        self.writer = ReceiptWriter(store: store, maximumBatch: configuration.maximumBatch, linger: configuration.commitLinger) {
            metrics.batchCommitted(size: $0)
        }
        do {
            let http = try HTTPServer(
                host: configuration.host, port: configuration.port, threads: configuration.threads, limits: configuration.limits,
                observe: { metrics.observe(status: $0, seconds: $1) },
                gate: { [unowned self] request in self.admit(request) },
                handler: { [unowned self] request in self.handle(request) }
            )
            self.http = http
            metrics.connections { [weak http] in
                guard let http else { return (0, 0, 0) }
                let closed = http.closedSlowClients
                return (http.openConnections, closed.headers, closed.bodies)
            }
        } catch {
            writer.stop()
            sender?.shutdown()
            throw error
        }
    }

    /// Graceful shutdown: stop accepting, wait for requests in flight (up to the grace period),
    /// commit what is queued, stop the server and close the store. Idempotent.
    ///
    /// - Throws: `RichPushError` `store` when the final checkpoint fails (data is still committed).
    public func shutdown() throws {
        let first = stopLock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first, let http else { return }
        http.quiesce()
        let end = Date().addingTimeInterval(configuration.shutdownGrace)
        while http.inFlight > 0 && Date() < end { Thread.sleep(forTimeInterval: 0.01) }
        if let sender {
            // Sends still waiting on APNs: close the connection so they fail fast and answer.
            sender.shutdown()
            let last = Date().addingTimeInterval(configuration.shutdownGrace)
            while sender.inFlight > 0 && Date() < last { Thread.sleep(forTimeInterval: 0.01) }
        }
        writer.stop()
        http.stop()
        try store.close()
    }

    // MARK: Admission (headers only, before any body byte)

    private func admit(_ request: HTTPRequest) -> HTTPAdmission {
        let declared: UInt64?
        switch RequestFraming.declaredLength(
            contentLengths: request.headerValues("Content-Length"), transferEncodings: request.headerValues("Transfer-Encoding"))
        {
        case .failure(let error):
            metrics.requestRefused("framing")
            return .refuse(.error(error.status, code: error.code, message: error.message, headers: [("Connection", "close")]))
        case .success(let length):
            declared = length
        }
        if request.serverOpenConnections >= configuration.limits.busyThreshold {
            metrics.requestRefused("busy")
            return .refuse(
                .error(
                    503, code: "server_busy",
                    message: "the server has too many open connections right now (\(configuration.limits.maximumConnections) at most); retry in a moment",
                    headers: [("Retry-After", "1"), ("Connection", "close")]))
        }
        let method = request.method == "HEAD" ? "GET" : request.method
        let route = Route(path: request.path)
        guard route != .notFound else {
            return .refuse(
                .error(
                    404, code: "not_found", message: "no route for \(String(request.path.prefix(200))); see README (POST /v1/receipts, GET /v1/pushes, GET /)"))
        }
        guard route.methods.contains(method) else { return .refuse(.methodNotAllowed(route.methods)) }

        switch route.access {
        case .open:
            // POST /v1/devices takes the admin token as proof for a user_id: a guess there is
            // throttled like any other, so the open endpoint is no way around the login limit.
            if route == .devices, let authorization = request.header("Authorization") {
                let client = clientOrigin(request)
                if let wait = throttle.retryAfter(client.address) { return .refuse(throttled(wait, page: false)) }
                if case .wrongToken = auth.credential(authorization: authorization, cookie: nil) {
                    throttle.recordFailure(client.address)
                }
            }
        case .admin:
            let client = clientOrigin(request)
            let authorization = request.header("Authorization")
            if authorization != nil, let wait = throttle.retryAfter(client.address) {
                return .refuse(throttled(wait, page: false))
            }
            switch auth.credential(authorization: authorization, cookie: request.header("Cookie")) {
            case .bearer:
                break
            case .session:
                if method != "GET", let refusal = origins.refusal(origin: request.header("Origin"), fetchSite: request.header("Sec-Fetch-Site"), client: client)
                {
                    metrics.requestRefused("cross_origin")
                    return .refuse(.error(403, code: "cross_origin", message: refusal, headers: [("Cache-Control", "no-store")]))
                }
            case .wrongToken:
                throttle.recordFailure(client.address)
                metrics.requestRefused("unauthorized")
                return .refuse(unauthorized(page: false))
            case .none:
                metrics.requestRefused("unauthorized")
                return .refuse(unauthorized(page: route.isPage))
            }
        case .adminBearer:
            let client = clientOrigin(request)
            let authorization = request.header("Authorization")
            if authorization != nil, let wait = throttle.retryAfter(client.address) {
                return .refuse(throttled(wait, page: false))
            }
            switch auth.credential(authorization: authorization, cookie: nil) {
            case .bearer:
                break
            case .wrongToken:
                throttle.recordFailure(client.address)
                metrics.requestRefused("unauthorized")
                return .refuse(unauthorized(page: false))
            case .session, .none:
                metrics.requestRefused("unauthorized")
                return .refuse(unauthorized(page: false))
            }
        case .session:
            if method == "POST" {
                let client = clientOrigin(request)
                if route == .login, let wait = throttle.retryAfter(client.address) { return .refuse(throttled(wait, page: true)) }
                if let refusal = origins.refusal(origin: request.header("Origin"), fetchSite: request.header("Sec-Fetch-Site"), client: client) {
                    metrics.requestRefused("cross_origin")
                    return .refuse(.html(403, LoginPage.render(error: refusal), headers: [("Cache-Control", "no-store")]))
                }
            }
        }

        if route == .pushes && method == "POST" {
            let type = request.header("Content-Type").map(ReceiptDecoder.mediaType)
            guard type == "application/json" else {
                metrics.requestRefused("media_type")
                return .refuse(
                    .error(
                        415, code: "unsupported_media_type",
                        message: "POST /v1/pushes takes a JSON body: send 'Content-Type: application/json' (got \(type.map { "'\($0.prefix(60))'" } ?? "none"))"
                    ))
            }
        }
        let limit = route.bodyLimit(method: method, receiptBytes: configuration.maximumBody)
        if let declared, declared > UInt64(limit) {
            metrics.requestRefused("too_large")
            if route == .receipts { metrics.receiptRejected("too_large") }
            return .refuse(.error(413, code: "too_large", message: tooLargeMessage(route, limit: limit)))
        }
        return .read(maximumBody: limit)
    }

    /// The client behind the request (trusted proxies' forwarding headers applied).
    private func clientOrigin(_ request: HTTPRequest) -> ClientOrigin {
        ClientOrigin.resolve(
            peer: request.peer, header: { request.header($0) }, headerValues: { request.headerValues($0) }, trustedProxies: trustedProxies)
    }

    private func tooLargeMessage(_ route: Route, limit: Int) -> String {
        switch route {
        case .receipts: return "a receipt body is at most \(limit) bytes"
        case .pushes:
            return
                "a push request body is at most \(PushSendRequest.maximumBodyBytes) bytes (and \(PushSendRequest.maximumTokens) tokens): split the tokens into several requests with the same push_id"
        case .recordSends:
            return "a sends body is at most \(RecordedSendRequest.maximumBodyBytes) bytes (and \(PushSendRequest.maximumTokens) results): send several batches"
        case .devices: return "a device registration is at most \(limit) bytes"
        default: return "the body is at most \(limit) bytes here"
        }
    }

    // MARK: Routing (complete requests)

    private func handle(_ request: HTTPRequest) -> Bool {
        let method = request.method == "HEAD" ? "GET" : request.method
        switch Route(path: request.path) {
        case .receipts:
            return receiveReceipt(request)
        case .healthz:
            let health = (store as? any StoreHealthReporting)?.health() ?? .available
            guard health.isAvailable else {
                return answer(request, .json(503, ["status": "unavailable", "reason": health.reason ?? "the store is unavailable"]))
            }
            return answer(request, .json(200, ["status": "ok"]))
        case .metrics:
            var text = metrics.render()
            if let reporter = store as? any StoreHealthReporting {
                // A store that can lose its database (PostgreSQL): 1 while it answers, for alerts.
                let up = reporter.health().isAvailable ? 1 : 0
                text += "# HELP richpush_store_up Whether the database answers (1) or not (0).\n# TYPE richpush_store_up gauge\nrichpush_store_up \(up)\n"
            }
            return answer(request, HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Data(text.utf8)))
        case .dashboard:
            return answer(request, admin(dashboard(request)))
        case .pushPage(let pushID):
            return answer(request, admin(pushPage(pushID)))
        case .login:
            if method == "GET" { return answer(request, .html(200, LoginPage.render(error: nil))) }
            return answer(request, admin(login(request)))
        case .logout:
            auth.endSession(cookie: request.header("Cookie"))
            let secure = clientOrigin(request).overTLS || publicHTTPS
            return answer(request, admin(.empty(303, headers: [("Location", "/login"), ("Set-Cookie", AdminAuthenticator.logoutCookie(secure: secure))])))
        case .pushes:
            if method == "POST" { return sendPush(request) }
            return answer(request, admin(listPushes(request)))
        case .push(let pushID):
            return answer(request, admin(showPush(pushID)))
        case .recordSends(let pushID):
            return reply(request, RecordedSendEndpoint(store: store).handle(request, pushID: pushID))
        case .devices:
            return reply(request, devices.register(request))
        case .device(let token):
            return reply(request, devices.unregister(token))
        case .notFound:
            return answer(request, .error(404, code: "not_found", message: "no route for \(String(request.path.prefix(200)))"))
        }
    }

    private func answer(_ request: HTTPRequest, _ response: HTTPResponse) -> Bool {
        request.respond(response)
        return true
    }

    /// Answers now, or runs the store work on `storeWrites` and answers from there (the
    /// connection waits, suspended: no server thread waits on SQLite's fsync).
    private func reply(_ request: HTTPRequest, _ reply: EndpointReply) -> Bool {
        switch reply {
        case .now(let response):
            return answer(request, response)
        case .later(let work):
            storeWrites.async { request.respond(work()) }
            return false
        }
    }

    private var devices: DeviceEndpoint {
        DeviceEndpoint(store: store, auth: auth, secret: configuration.deviceSecret, maximumBody: configuration.maximumBody)
    }

    /// An admin answer: never cached (figures and pages behind the token).
    private func admin(_ response: HTTPResponse) -> HTTPResponse {
        var out = response
        out.headers.append(("Cache-Control", "no-store"))
        return out
    }

    private func unauthorized(page: Bool) -> HTTPResponse {
        if page { return .html(401, LoginPage.render(error: nil), headers: [("Cache-Control", "no-store")]) }
        return .error(
            401, code: "unauthorized",
            message: "send the admin token as 'Authorization: Bearer TOKEN' (printed by richpush serve, or --admin-token / RICHPUSH_ADMIN_TOKEN)",
            headers: [("WWW-Authenticate", "Bearer realm=\"richpush\"")]
        )
    }

    private func throttled(_ seconds: Int, page: Bool) -> HTTPResponse {
        metrics.requestRefused("throttled")
        let message =
            "too many wrong admin tokens from this address; try again in \(seconds) s (at most \(LoginThrottle.defaultBurst) attempts, then one every \(Int(LoginThrottle.defaultRefillSeconds)) s)"
        if page { return .html(429, LoginPage.render(error: message), headers: [("Retry-After", String(seconds)), ("Cache-Control", "no-store")]) }
        return .error(429, code: "too_many_attempts", message: message, headers: [("Retry-After", String(seconds))])
    }

    // MARK: Receipts

    private func receiveReceipt(_ request: HTTPRequest) -> Bool {
        if request.bodyTooLarge {
            metrics.receiptRejected("too_large")
            return answer(
                request,
                .error(413, code: "too_large", message: "a receipt body is at most \(configuration.maximumBody) bytes")
            )
        }
        let receipt: Receipt
        do {
            receipt = try ReceiptDecoder.decode(body: request.body, contentType: request.header("Content-Type"))
        } catch let error as ReceiptFieldError {
            metrics.receiptRejected("bad_request")
            return answer(request, HTTPResponse(status: error.status, contentType: "application/json", body: error.jsonBody))
        } catch {
            metrics.receiptRejected("bad_request")
            return answer(request, .error(400, code: "invalid_body", message: "the receipt could not be read"))
        }
        let stored = StoredReceipt(
            receipt: receipt, userAgent: request.header("User-Agent"), receivedAtMs: Int(Date().timeIntervalSince1970 * 1000)
        )
        let metrics = self.metrics
        let queued = writer.submit(stored) { [weak self] result in
            switch result {
            case .stored:
                metrics.receiptAccepted()
                request.respond(.empty(202))
            case .duplicate:
                metrics.receiptDuplicate()
                request.respond(.empty(202))
            case .failed(let message):
                // The detail (which names the database file) goes to the operator's log, not to
                // anonymous clients.
                metrics.receiptRejected("store_error")
                self?.logStoreError(message)
                request.respond(.error(503, code: "store_error", message: "the receipt was not stored; retry later", headers: [("Retry-After", "1")]))
            }
        }
        if !queued {
            metrics.receiptRejected("store_error")
            return answer(request, .error(503, code: "shutting_down", message: "the server is shutting down; retry later", headers: [("Retry-After", "1")]))
        }
        return false
    }

    /// Writes a store failure to stderr, at most once a second.
    private func logStoreError(_ message: String) {
        let now = Date()
        let due = logLock.withLock {
            guard now.timeIntervalSince(lastStoreLog) >= 1 else { return false }
            lastStoreLog = now
            return true
        }
        if due { FileHandle.standardError.write(Data("richpush serve: receipts not stored (answered 503): \(message)\n".utf8)) }
    }

    // MARK: Sending

    private func sendPush(_ request: HTTPRequest) -> Bool {
        guard let sender else {
            return answer(
                request,
                admin(
                    .error(
                        503, code: "apns_not_configured",
                        message: "POST /v1/pushes needs APNs or FCM settings; start richpush serve with: " + configuration.apnsMissing.joined(separator: ", ")
                            + " (optional: --apns-sandbox, --apns-url URL, --apns-ca-file PEM), or --fcm-service-account FILE"
                    ))
            )
        }
        if request.bodyTooLarge {
            return answer(
                request, PushRequestError(status: 413, code: "too_large", message: tooLargeMessage(.pushes, limit: PushSendRequest.maximumBodyBytes)).response)
        }
        let push: PushSendRequest
        do {
            push = try PushSendRequest(body: request.body, defaultTopic: sender.settings?.topic)
        } catch let error as PushRequestError {
            return answer(request, error.response)
        } catch {
            return answer(request, .error(400, code: "invalid_request", message: String(describing: error)))
        }
        sender.send(push) { response in request.respond(response) }
        return false
    }

    // MARK: Admin

    private func listPushes(_ request: HTTPRequest) -> HTTPResponse {
        let parameters: ListParameters
        do {
            parameters = try ListParameters.parse({ request.query($0) }, defaultLimit: 100)
        } catch let invalid as ListParameters.Invalid {
            return .error(400, code: "invalid_query", message: invalid.message)
        } catch {
            return .error(400, code: "invalid_query", message: String(describing: error))
        }
        do {
            return .json(200, PushList(try store.pushes(parameters.query)))
        } catch {
            return storeError(error)
        }
    }

    private func showPush(_ pushID: String) -> HTTPResponse {
        guard !pushID.isEmpty, pushID.utf8.count <= Receipt.Limits.identifierBytes else {
            return .error(400, code: "invalid_push_id", message: "push_id must be 1…\(Receipt.Limits.identifierBytes) bytes")
        }
        do {
            guard let push = try store.push(pushID) else {
                return .error(404, code: "unknown_push", message: "no receipts or sends for push_id '\(IdentifierRule.displayable(pushID))'")
            }
            return .json(200, push)
        } catch {
            return storeError(error)
        }
    }

    private func dashboard(_ request: HTTPRequest) -> HTTPResponse {
        var problem: String?
        var parameters = ListParameters(query: PushQuery(limit: DashboardPage.pageSize))
        do {
            parameters = try ListParameters.parse({ request.query($0) }, defaultLimit: DashboardPage.pageSize)
        } catch let invalid as ListParameters.Invalid {
            problem = invalid.message
        } catch {
            problem = String(describing: error)
        }
        do {
            let range = DashboardQuery(maximumBuckets: 60, fromMs: parameters.query.startedFromMs, toMs: parameters.query.startedBeforeMs)
            let snapshot = try store.dashboard(range)
            let page = try store.pushes(parameters.query)
            let view = DashboardPage.View(
                snapshot: snapshot, page: page, parameters: parameters, problem: problem, generatedAtMs: Int(Date().timeIntervalSince1970 * 1000))
            return .html(200, DashboardPage.render(view))
        } catch {
            return storeError(error)
        }
    }

    private func pushPage(_ pushID: String) -> HTTPResponse {
        guard !pushID.isEmpty, pushID.utf8.count <= Receipt.Limits.identifierBytes else {
            return .html(400, PushDetailPage.notFound(pushID, message: "A push id is 1…\(Receipt.Limits.identifierBytes) bytes."))
        }
        do {
            guard let detail = try store.pushDetail(pushID) else {
                return .html(404, PushDetailPage.notFound(pushID, message: "No receipts or sends are recorded for this push id."))
            }
            return .html(200, PushDetailPage.render(detail, generatedAtMs: Int(Date().timeIntervalSince1970 * 1000)))
        } catch {
            return storeError(error)
        }
    }

    private func login(_ request: HTTPRequest) -> HTTPResponse {
        let client = clientOrigin(request)
        let body = String(decoding: request.body, as: UTF8.self)
        var token: String?
        for pair in body.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if kv.count == 2, kv[0] == "token" {
                token = String(kv[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
        }
        guard let token, auth.matches(token) else {
            throttle.recordFailure(client.address)
            metrics.requestRefused("unauthorized")
            return .html(401, LoginPage.render(error: "That token is not the admin token. It was printed when richpush serve started."))
        }
        let secure = client.overTLS || publicHTTPS
        return .empty(303, headers: [("Location", "/"), ("Set-Cookie", auth.startSession(secure: secure))])
    }

    /// A store failure for the admin (who may see the detail: the database path helps them).
    private func storeError(_ error: any Error) -> HTTPResponse {
        let message = (error as? RichPushError)?.message ?? String(describing: error)
        return .error(503, code: "store_error", message: message)
    }
}
