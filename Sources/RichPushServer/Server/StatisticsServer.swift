import Foundation
import RichPushCore

/// The statistics server: receipts in (`POST /v1/receipts`), figures out (`GET /v1/pushes`,
/// the dashboard at `/`), plus `/healthz` and `/metrics`.
///
/// Routes:
/// - `POST /v1/receipts` (open): form or JSON receipt → `202` after COMMIT, `400` naming the
///   field, `415` for another body type (multipart, XML, JSON sent as a form), `413` over 8 KB,
///   `503` when the store failed.
/// - `POST /v1/pushes` (admin): lint, send through APNs or FCM to the given tokens and to the
///   devices of the given `user_ids`, skipping tokens known inactive or bad; record `sent` /
///   `accepted` / `skipped` and each token's outcome; 200 with per-token results, 400 naming the
///   field or with the lint findings, 413 over 10,000 tokens or 1 MB, 502 when a provider refused
///   the server's key/team/topic/service account, 503 without settings for the provider needed.
/// - `POST /v1/pushes/{push_id}/sends` (admin, Bearer only): record the sends of a push another
///   system sent (counts or per-token outcomes), idempotent per `batch_id`; 200, 409 for a
///   `batch_id` recorded with other figures.
/// - `GET /v1/pushes`, `GET /v1/pushes/{push_id}` (admin): JSON figures.
/// - `POST /v1/devices` (open to apps; a `user_id` needs the admin Bearer token or a valid
///   `user_hash`), `DELETE /v1/devices/{token}` (open: whoever holds the token): the token lifecycle.
/// - `GET /` (admin, Bearer or session cookie): the dashboard; `GET /login`, `POST /login` (a
///   12 h session in memory, the cookie holds its random id, never the token), `POST /logout`
///   (ends the session).
/// - `GET /healthz` (open): `200 {"status":"ok"}`, or `503 {"status":"unavailable","reason":…}`
///   while the store's database is unreachable (PostgreSQL); `GET /metrics` (open).
public final class StatisticsServer: @unchecked Sendable {
    /// The store behind the server.
    public let store: any ReceiptStore & StatisticsStore
    /// The counters behind `/metrics`.
    public let metrics = ServerMetrics()
    private let configuration: ServerConfiguration
    private let auth: AdminAuthenticator
    private let writer: ReceiptWriter
    private let sender: PushSender?
    /// Device registrations and recorded sends are written here, off the server's threads.
    private let storeWrites = DispatchQueue(label: "richpush.server.store-writes")
    private var http: HTTPServer?
    private let stopLock = NSLock()
    private var stopped = false

    /// The bound port.
    public var port: Int { http?.port ?? 0 }

    /// The Firebase project FCM sends go to, when FCM is configured.
    public var fcmProjectID: String? { sender?.fcmProjectID }

    /// Starts the writer thread and the HTTP server.
    ///
    /// - Parameters:
    ///   - configuration: host, port, token, bounds.
    ///   - store: where receipts go.
    /// - Throws: `RichPushError` `listen` when the address cannot be bound; `invalid_key`, `io`
    ///   when the APNs key or CA file cannot be read.
    public init(configuration: ServerConfiguration, store: any ReceiptStore & StatisticsStore) throws {
        self.configuration = configuration
        self.store = store
        self.auth = AdminAuthenticator(token: configuration.adminToken)
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
            self.http = try HTTPServer(
                host: configuration.host, port: configuration.port, threads: configuration.threads,
                maximumBody: configuration.maximumBody, observe: { metrics.observe(status: $0, seconds: $1) },
                handler: { [unowned self] request in self.handle(request) }
            )
        } catch {
            writer.stop()
            sender?.shutdown()
            throw error
        }
        http?.allowLargeBody(path: "/v1/pushes|/v1/pushes/*/sends", maximumBody: PushSendRequest.maximumBodyBytes)
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

    // MARK: Routing

    private func handle(_ request: HTTPRequest) -> Bool {
        let method = request.method == "HEAD" ? "GET" : request.method
        let path = request.path
        switch path {
        case "/v1/receipts":
            guard method == "POST" else { return answer(request, .methodNotAllowed(["POST"])) }
            return receiveReceipt(request)
        case "/healthz":
            guard method == "GET" else { return answer(request, .methodNotAllowed(["GET"])) }
            let health = (store as? any StoreHealthReporting)?.health() ?? .available
            guard health.isAvailable else {
                return answer(request, .json(503, ["status": "unavailable", "reason": health.reason ?? "the store is unavailable"]))
            }
            return answer(request, .json(200, ["status": "ok"]))
        case "/metrics":
            guard method == "GET" else { return answer(request, .methodNotAllowed(["GET"])) }
            var text = metrics.render()
            if let reporter = store as? any StoreHealthReporting {
                // A store that can lose its database (PostgreSQL): 1 while it answers, for alerts.
                let up = reporter.health().isAvailable ? 1 : 0
                text += "# HELP richpush_store_up Whether the database answers (1) or not (0).\n# TYPE richpush_store_up gauge\nrichpush_store_up \(up)\n"
            }
            return answer(request, HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Data(text.utf8)))
        case "/", "/dashboard":
            guard method == "GET" else { return answer(request, .methodNotAllowed(["GET"])) }
            guard auth.isAuthorized(request) else { return answer(request, .html(401, LoginPage.render(error: nil))) }
            return answer(request, dashboard())
        case "/login":
            if method == "GET" { return answer(request, .html(200, LoginPage.render(error: nil))) }
            guard method == "POST" else { return answer(request, .methodNotAllowed(["GET", "POST"])) }
            return answer(request, login(request))
        case "/logout":
            guard method == "POST" else { return answer(request, .methodNotAllowed(["POST"])) }
            auth.endSession(cookie: request.header("Cookie"))
            return answer(request, .empty(303, headers: [("Location", "/login"), ("Set-Cookie", AdminAuthenticator.logoutCookie)]))
        case "/v1/pushes":
            guard method == "GET" || method == "POST" else { return answer(request, .methodNotAllowed(["GET", "POST"])) }
            guard auth.isAuthorized(request) else { return answer(request, unauthorized()) }
            if method == "POST" { return sendPush(request) }
            return answer(request, listPushes(request))
        case "/v1/devices":
            guard method == "POST" else { return answer(request, .methodNotAllowed(["POST"])) }
            return reply(request, devices.register(request))
        default:
            if path.hasPrefix("/v1/pushes/"), path.hasSuffix("/sends"), path.count > "/v1/pushes//sends".count {
                guard method == "POST" else { return answer(request, .methodNotAllowed(["POST"])) }
                guard auth.isAuthorized(authorization: request.header("Authorization"), cookie: nil) else { return answer(request, unauthorized()) }
                let pushID = String(path.dropFirst("/v1/pushes/".count).dropLast("/sends".count))
                return reply(request, RecordedSendEndpoint(store: store).handle(request, pushID: pushID))
            }
            if path.hasPrefix("/v1/devices/") {
                guard method == "DELETE" else { return answer(request, .methodNotAllowed(["DELETE"])) }
                return reply(request, devices.unregister(String(path.dropFirst("/v1/devices/".count))))
            }
            if path.hasPrefix("/v1/pushes/") {
                guard method == "GET" else { return answer(request, .methodNotAllowed(["GET"])) }
                guard auth.isAuthorized(request) else { return answer(request, unauthorized()) }
                return answer(request, showPush(String(path.dropFirst("/v1/pushes/".count))))
            }
            return answer(request, .error(404, code: "not_found", message: "no route for \(path.prefix(200)); see README (POST /v1/receipts, GET /v1/pushes, GET /)"))
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

    private func unauthorized() -> HTTPResponse {
        .error(
            401, code: "unauthorized",
            message: "send the admin token as 'Authorization: Bearer TOKEN' (printed by richpush serve, or --admin-token / RICHPUSH_ADMIN_TOKEN)",
            headers: [("WWW-Authenticate", "Bearer realm=\"richpush\"")]
        )
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
        let queued = writer.submit(stored) { result in
            switch result {
            case .stored:
                metrics.receiptAccepted()
                request.respond(.empty(202))
            case .duplicate:
                metrics.receiptDuplicate()
                request.respond(.empty(202))
            case .failed(let message):
                metrics.receiptRejected("store_error")
                request.respond(.error(503, code: "store_error", message: "not stored (\(message)); retry later", headers: [("Retry-After", "1")]))
            }
        }
        if !queued {
            metrics.receiptRejected("store_error")
            return answer(request, .error(503, code: "shutting_down", message: "the server is shutting down; retry later", headers: [("Retry-After", "1")]))
        }
        return false
    }

    // MARK: Sending

    private func sendPush(_ request: HTTPRequest) -> Bool {
        guard let sender else {
            return answer(
                request,
                .error(
                    503, code: "apns_not_configured",
                    message: "POST /v1/pushes needs APNs or FCM settings; start richpush serve with: " + configuration.apnsMissing.joined(separator: ", ")
                        + " (optional: --apns-sandbox, --apns-url URL, --apns-ca-file PEM), or --fcm-service-account FILE"
                )
            )
        }
        if request.bodyTooLarge {
            return answer(
                request,
                PushRequestError(
                    status: 413, code: "too_large",
                    message: "a push request body is at most \(PushSendRequest.maximumBodyBytes) bytes (and \(PushSendRequest.maximumTokens) tokens): split the tokens into several requests with the same push_id"
                ).response
            )
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
        var limit = 100
        if let raw = request.query("limit") {
            guard let value = Int(raw), (1...1000).contains(value) else {
                return .error(400, code: "invalid_query", message: "limit must be an integer from 1 to 1000")
            }
            limit = value
        }
        do {
            return .json(200, PushList(pushes: try store.pushes(limit: limit)))
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
                return .error(404, code: "unknown_push", message: "no receipts or sends for push_id '\(pushID)'")
            }
            return .json(200, push)
        } catch {
            return storeError(error)
        }
    }

    private func dashboard() -> HTTPResponse {
        do {
            let snapshot = try store.dashboard(maximumBuckets: 60)
            return .html(200, DashboardPage.render(snapshot, generatedAtMs: Int(Date().timeIntervalSince1970 * 1000)))
        } catch {
            return storeError(error)
        }
    }

    private func login(_ request: HTTPRequest) -> HTTPResponse {
        let body = String(decoding: request.body, as: UTF8.self)
        var token: String?
        for pair in body.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if kv.count == 2, kv[0] == "token" {
                token = String(kv[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
        }
        guard let token, auth.matches(token) else {
            return .html(401, LoginPage.render(error: "That token is not the admin token. It was printed when richpush serve started."))
        }
        return .empty(303, headers: [("Location", "/"), ("Set-Cookie", auth.startSession())])
    }

    private func storeError(_ error: any Error) -> HTTPResponse {
        let message = (error as? RichPushError)?.message ?? String(describing: error)
        return .error(503, code: "store_error", message: message)
    }
}
