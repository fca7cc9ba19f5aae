import Foundation
import RichPushCore
import RichPushProvider

/// Sends `POST /v1/pushes` through APNs and/or FCM and records the send in the store.
///
/// One `APNsClient` (one HTTP/2 connection, one cached provider token) and one `FCMClient` (one
/// cached OAuth2 access token) serve every request. Before sending, the targets are resolved
/// (`user_ids` → the devices the app registered, each through its own provider) and the tokens a
/// provider called inactive or bad, and not registered again since, are skipped (counted per
/// push as `skipped`). The provider work runs in a task off libmicrohttpd's threads (the
/// connection is suspended meanwhile), and the store work on the store's lanes (lookups on
/// `read`, the send's record on `write`), so no server thread and no thread of Swift's
/// cooperative pool waits on the network or on SQLite.
public final class PushSender: Sendable {
    /// The APNs settings (without the key's contents), when APNs is configured.
    public let settings: APNsSettings?
    /// The FCM settings, when FCM is configured.
    public let fcmSettings: FCMSettings?
    /// The APNs settings not given (for the 503 when a push needs APNs).
    public let apnsMissing: [String]
    /// What the 502 and 503 answers call the settings to change.
    public let names: PushSettingNames
    private let apns: APNsClient?
    private let fcm: FCMClient?
    private let store: any ReceiptStore
    private let lanes: StoreLanes
    private let pending = PendingCounter()
    /// Where `token.inactive`, `token.bad` and `push.sent` go (written with the send's record).
    private let webhooks: WebhookSettings?

    /// Reads the key(s) and opens the clients (connections are made on the first send).
    ///
    /// - Parameters:
    ///   - settings: APNs key, key id, team id, topic, environment, CA file; `nil` = no APNs.
    ///   - fcm: the FCM service account and endpoints; `nil` = no FCM.
    ///   - apnsMissing: the APNs settings not given, for the 503 (when `settings` is `nil`).
    ///   - names: what the 502 and 503 answers call the settings.
    ///   - store: where sends are recorded (`recordSend`) and devices looked up.
    ///   - retry: backoff for 429 / 5xx (APNs) and `QUOTA_EXCEEDED` / `UNAVAILABLE` (FCM).
    ///   - webhooks: the webhook endpoints, whose events are written with each recorded send.
    ///   - lanes: the store's lanes (the server's; a new set by default).
    /// - Throws: `RichPushError` `invalid_key` (the `.p8` or the service account's key cannot be
    ///   read), `io` (a CA or service-account file cannot be read), `configuration`, `transport`.
    public init(
        settings: APNsSettings?, fcm: FCMSettings? = nil, apnsMissing: [String] = PushSettingNames.descriptive.apnsRequired,
        names: PushSettingNames = .descriptive, store: any ReceiptStore, retry: APNsRetryPolicy = APNsRetryPolicy(),
        webhooks: WebhookSettings? = nil, lanes: StoreLanes = StoreLanes()
    ) throws {
        self.webhooks = webhooks
        self.lanes = lanes
        self.settings = settings
        self.fcmSettings = fcm
        self.apnsMissing = apnsMissing
        self.names = names
        self.store = store
        if let settings {
            let signer = try settings.signer()
            let manager = APNsTokenManager(signer: signer, keyID: settings.keyID, teamID: settings.teamID)
            var transport = TransportConfiguration()
            transport.settingNames = settings.transportSettingNames
            transport.connections = max(1, settings.connections)
            transport.eventLog = { PushSender.log("APNs", $0) }
            if let caFile = settings.caFile {
                guard FileManager.default.isReadableFile(atPath: caFile) else {
                    throw RichPushError(code: .io, message: "cannot read the CA file \(caFile) given to \(transport.settingNames.caFile)")
                }
                transport.caFile = caFile
            }
            apns = try APNsClient(
                environment: settings.environment, authentication: .token(manager), transport: transport, retry: retry,
                settingNames: settings.settingNames)
        } else {
            apns = nil
        }
        if let fcm {
            var account: FCMServiceAccount
            do {
                account = try FCMServiceAccount(contentsOf: fcm.serviceAccountFile)
            } catch let error as RichPushError {
                apns?.shutdown()
                throw RichPushError(
                    code: error.code,
                    message:
                        "the FCM service account for POST /v1/pushes (\(fcm.settingNames.serviceAccount) or RICHPUSH_FCM_SERVICE_ACCOUNT): \(error.message)")
            }
            if let tokenURL = fcm.tokenURL { account.tokenURI = tokenURL }
            var transport = TransportConfiguration()
            transport.settingNames = fcm.transportSettingNames
            transport.eventLog = { PushSender.log("FCM", $0) }
            if let caFile = fcm.caFile {
                guard FileManager.default.isReadableFile(atPath: caFile) else {
                    apns?.shutdown()
                    throw RichPushError(code: .io, message: "cannot read the CA file \(caFile) given to \(transport.settingNames.caFile)")
                }
                transport.caFile = caFile
            }
            do {
                self.fcm = try FCMClient(
                    account: account, endpoint: fcm.endpoint, transport: transport, retry: retry, settingNames: fcm.settingNames)
            } catch {
                apns?.shutdown()
                throw error
            }
        } else {
            self.fcm = nil
        }
    }

    /// Sends requests not yet answered.
    public var inFlight: Int { pending.value }

    /// Writes a provider connection's rare event (a GOAWAY with APNs' `reason`, a dead
    /// connection) to standard error, as one line.
    private static func log(_ provider: String, _ line: String) {
        FileHandle.standardError.write(Data("richpush serve: \(provider): \(line)\n".utf8))
    }

    /// The provider connections' figures in Prometheus' text format
    /// (`richpush_provider_connection_events_total{provider,event}`): connections opened, GOAWAYs
    /// received, requests the server had not processed sent again, answers lost (`unknown`),
    /// connections dead after an unanswered PING; empty when no provider is configured.
    ///
    /// - Returns: the lines, each ending in a newline.
    func renderConnectionMetrics() -> String {
        let figures = [("apns", apns?.connectionStatistics), ("fcm", fcm?.connectionStatistics)].compactMap { name, statistics in
            statistics.map { (name, $0) }
        }
        guard !figures.isEmpty else { return "" }
        var text = """
            # HELP richpush_provider_connection_events_total What the HTTP/2 connections to APNs and FCM met (this instance): connections opened, GOAWAYs received, requests not processed sent again, answers lost (unknown), connections dead after an unanswered PING.
            # TYPE richpush_provider_connection_events_total counter

            """
        for (name, statistics) in figures {
            for (event, value) in [
                ("connection_opened", statistics.connectionsOpened), ("goaway", statistics.goawaysReceived), ("resent", statistics.resent),
                ("not_processed", statistics.notProcessed), ("unknown", statistics.unknown), ("ping_timeout", statistics.pingTimeouts),
            ] {
                text += "richpush_provider_connection_events_total{provider=\"\(name)\",event=\"\(event)\"} \(value)\n"
            }
        }
        return text
    }

    /// The provider for `tokens` when a request names none: APNs when configured, else FCM.
    public var defaultProvider: PushProvider { apns != nil ? .apns : .fcm }

    /// The client of each configured provider.
    private var clients: [PushProvider: any PushProviderClient] {
        var clients: [PushProvider: any PushProviderClient] = [:]
        clients[.apns] = apns
        clients[.fcm] = fcm
        return clients
    }

    /// The client of `provider`, `nil` when it is not configured (campaign workers send through it).
    ///
    /// - Parameter provider: the provider.
    /// - Returns: its client.
    func client(for provider: PushProvider) -> (any PushProviderClient)? { clients[provider] }

    /// The FCM project, when FCM is configured.
    public var fcmProjectID: String? { fcm?.projectID }

    /// Closes the connections; sends in flight fail (and are answered) soon after.
    public func shutdown() {
        apns?.shutdown()
        fcm?.shutdown()
    }

    /// Runs store work on one of the store's lanes (SQLite's fsync never holds a pool thread).
    private func onStore<T: Sendable>(_ lane: StoreLanes.Lane, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await lanes.run(lane, work)
    }

    /// One target of a send.
    struct Target: Sendable {
        var token: String
        var provider: PushProvider
    }

    /// Sends a checked request and calls `respond` once with the HTTP response, from another
    /// thread: 200 with the results, 502 when a provider refused the server's configuration
    /// (key, team, topic, service account), 503 when a needed provider is not configured, 413
    /// when `user_ids` bring more than 10,000 tokens.
    ///
    /// - Parameters:
    ///   - request: the checked request.
    ///   - respond: called exactly once.
    public func send(_ request: PushSendRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        pending.add(1)
        Task.detached { [self] in
            let response = await self.run(request)
            respond(response)
            self.pending.add(-1)
        }
    }

    private func run(_ request: PushSendRequest) async -> ServerResponse {
        let sentAtMs = Int(Date().timeIntervalSince1970 * 1000)
        let explicitProvider = request.provider ?? defaultProvider
        // Targets: the tokens, then the users' registered devices (each through its provider).
        var targets = request.tokens.map { Target(token: $0, provider: explicitProvider) }
        var usersWithoutDevices: [String] = []
        let store = self.store
        do {
            if !request.userIDs.isEmpty {
                let devices = try await onStore(.read) { try store.devices(ofUsers: request.userIDs, limit: PushSendRequest.maximumTokens + 1) }
                let found = Set(devices.compactMap(\.userID))
                usersWithoutDevices = request.userIDs.filter { !found.contains($0) }
                var seen = Set(targets.map(\.token))
                for device in devices where request.provider == nil || device.provider == request.provider?.rawValue {
                    // The store holds only the providers `POST /v1/devices` accepts.
                    guard let provider = PushProvider(rawValue: device.provider) else { continue }
                    if seen.insert(device.token).inserted { targets.append(Target(token: device.token, provider: provider)) }
                }
            }
        } catch {
            return HTTPResponseError(
                status: 503, code: "store_error", message: "cannot look up the users' devices: \((error as? RichPushError)?.message ?? "\(error)"); retry later"
            ).response
        }
        guard targets.count <= PushSendRequest.maximumTokens else {
            return HTTPResponseError(
                status: 413, code: "too_many_tokens", field: "user_ids",
                message:
                    "the tokens and user_ids come to more than \(PushSendRequest.maximumTokens) device tokens; split the request (same push_id to add to one push)"
            ).response
        }
        let apnsTargets = targets.filter { $0.provider == .apns }.map(\.token)
        let fcmTargets = targets.filter { $0.provider == .fcm }.map(\.token)
        if !apnsTargets.isEmpty, apns == nil {
            return HTTPResponseError(
                status: 503, code: "apns_not_configured",
                message: "this push goes to APNs tokens, and POST /v1/pushes has no APNs settings; start richpush serve with: "
                    + apnsMissing.joined(separator: ", ")
                    + " (optional: \(names.apnsOptional))" + (fcm != nil ? ", or send FCM tokens with \"provider\": \"fcm\"" : "")
            ).response
        }
        if !fcmTargets.isEmpty, fcm == nil {
            return HTTPResponseError(
                status: 503, code: "fcm_not_configured",
                message:
                    "this push goes to FCM tokens, and POST /v1/pushes has no FCM settings; start richpush serve with \(names.fcmServiceAccount) FILE (or RICHPUSH_FCM_SERVICE_ACCOUNT)"
            ).response
        }

        // Tokens recorded inactive or bad, and not registered again since, are skipped.
        let skipped: [String: TokenSkip]
        do {
            let all = targets.map(\.token)
            skipped = try await onStore(.read) { try store.skippedTokens(among: all) }
        } catch {
            return HTTPResponseError(
                status: 503, code: "store_error", message: "cannot read the token states: \((error as? RichPushError)?.message ?? "\(error)"); retry later"
            ).response
        }

        let notification = request.notification
        let clients = self.clients
        async let apnsRun = Self.send(notification, via: clients[.apns], to: apnsTargets.filter { skipped[$0] == nil })
        async let fcmRun = Self.send(notification, via: clients[.fcm], to: fcmTargets.filter { skipped[$0] == nil })
        let (apnsOutcome, fcmOutcome) = await (apnsRun, fcmRun)

        var results: [(provider: PushProvider, result: any PushTokenResult)] = []
        var stops: [(PushProvider, RichPushError)] = []
        for (provider, outcome) in [(PushProvider.apns, apnsOutcome), (.fcm, fcmOutcome)] {
            switch outcome {
            case .failure(let error):
                // The request's own payload (nothing sent) is the caller's to fix; anything else a
                // provider client throws (signing, the transport) is the server's side: 502.
                let callersFault = [RichPushError.Code.payloadRejected, .invalidRequest, .invalidPayload].contains(error.code)
                return HTTPResponseError(status: callersFault ? 400 : 502, code: error.code.rawValue, message: error.message).response
            case .success(let batch):
                results += batch.results.map { (provider, $0) }
                if let stop = batch.stoppedBy { stops.append((provider, stop)) }
            }
        }

        // Record: one batch per provider, skipped tokens with their provider's.
        var records: [PushSendRecord] = []
        for provider in PushProvider.allCases {
            let sentTokens = results.filter { $0.provider == provider }.map {
                Self.tokenResult($0.result, topicFromRequest: provider == .apns && request.requestTopic != nil)
            }
            let skippedTokens = targets.filter { $0.provider == provider }.compactMap { target in
                skipped[target.token].map { skip in
                    PushSendRecord.TokenResult(deviceToken: target.token, status: nil, reason: skip.reason, outcome: PushOutcome.skipped.rawValue)
                }
            }
            guard !sentTokens.isEmpty || !skippedTokens.isEmpty else { continue }
            records.append(
                PushSendRecord(
                    pushID: request.pushID, sentAtMs: sentAtMs, title: request.title, tokens: sentTokens + skippedTokens,
                    source: provider.rawValue, batchID: "\(provider)-" + UUID().uuidString.lowercased()))
        }
        if let webhooks { records = webhooks.attaching(to: records, pushSent: true, atMs: Int(Date().timeIntervalSince1970 * 1000)) }
        var storeError: String?
        do {
            let batches = records
            try await onStore(.write) { for record in batches { try store.recordSend(record) } }
        } catch {
            storeError = (error as? RichPushError)?.message ?? String(describing: error)
        }
        return Self.response(
            request, results: results, targets: targets, skipped: skipped, stops: stops, usersWithoutDevices: usersWithoutDevices,
            storeError: storeError, names: names)
    }

    /// The results of one provider's part of a send.
    private struct ProviderBatch: Sendable {
        var results: [any PushTokenResult]
        var stoppedBy: RichPushError?
    }

    /// One provider's part of a send: nothing when it has no tokens (or is not configured).
    private static func send(
        _ notification: APNsNotification, via client: (any PushProviderClient)?, to tokens: [String]
    ) async -> Result<ProviderBatch, RichPushError> {
        guard let client, !tokens.isEmpty else { return .success(ProviderBatch(results: [])) }
        do {
            let batch = try await client.sendInOrder(notification, to: tokens)
            return .success(ProviderBatch(results: batch.results, stoppedBy: batch.summary.stoppedBy))
        } catch {
            return .failure((error as? RichPushError) ?? RichPushError(code: .transport, message: "\(error)"))
        }
    }

    /// APNs reasons that refuse the topic rather than the token or the credentials (Apple,
    /// "Handling notification responses from APNs").
    static let topicReasons: Set<String> = ["TopicDisallowed", "BadTopic", "DeviceTokenNotForTopic"]

    /// A provider's result as the store keeps it (what it said about the token itself included).
    ///
    /// - Parameters:
    ///   - r: the provider's result.
    ///   - topicFromRequest: whether the request gave its own APNs `topic`: then
    ///     `DeviceTokenNotForTopic` blames that topic, and the token is not recorded bad (it may
    ///     well belong to the server's own app).
    /// - Returns: the result to record.
    static func tokenResult(_ r: any PushTokenResult, topicFromRequest: Bool = false) -> PushSendRecord.TokenResult {
        var state: PushSendRecord.TokenState?
        if r.outcome == .tokenInactive { state = .inactive }
        if r.outcome == .tokenBad, !(topicFromRequest && r.reasonCode == "DeviceTokenNotForTopic") { state = .bad }
        return PushSendRecord.TokenResult(
            deviceToken: r.deviceToken, status: r.status, reason: r.reasonCode, apnsID: r.providerMessageID,
            outcome: r.outcome.rawValue, state: state,
            // Never trapping: APNs' timestamp can be any number (1e19 in a hostile answer).
            inactiveSinceMs: r.inactiveSince.flatMap(APNsResult.milliseconds)
        )
    }

    /// `{push_id, push_id_generated, sent, accepted, skipped, recorded, results: [{token, provider,
    /// status, reason, apns_id | message_id, outcome, message?}], media?, users_without_devices?}`, plus
    /// `error` (and status 502) when a configuration error stopped a provider's batch, naming the
    /// settings as `names` does (`apns_configuration`, `fcm_configuration`), or when a provider that
    /// did not answer stopped it (`apns_unavailable`, `fcm_unavailable`).
    static func response(
        _ request: PushSendRequest, results: [(provider: PushProvider, result: any PushTokenResult)], targets: [Target],
        skipped: [String: TokenSkip], stops: [(PushProvider, RichPushError)], usersWithoutDevices: [String], storeError: String?,
        names: PushSettingNames
    ) -> ServerResponse {
        var lines: [RichPushJSONValue] = []
        lines.reserveCapacity(targets.count)
        var sent = 0, accepted = 0
        for (provider, r) in results {
            if r.status != nil { sent += 1 }
            if r.outcome == .accepted { accepted += 1 }
            var o: [String: RichPushJSONValue] = [
                "token": .string(r.deviceToken), "provider": .string(provider.rawValue), "status": r.status.map(RichPushJSONValue.int) ?? .null,
                "reason": r.reasonCode.map(RichPushJSONValue.string) ?? .null, "outcome": .string(r.outcome.rawValue),
            ]
            o[provider == .apns ? "apns_id" : "message_id"] = r.providerMessageID.map(RichPushJSONValue.string) ?? .null
            if let message = r.message { o["message"] = .string(message) }
            lines.append(.object(o))
        }
        for target in targets {
            guard let skip = skipped[target.token] else { continue }
            let since = SQLiteStore.iso8601(skip.sinceMs)
            let what =
                skip.state == .deleted
                ? "the app deleted its registration" : "\(target.provider.displayName) called it \(skip.state) (\(skip.reason ?? "no reason"))"
            lines.append(
                .object([
                    "token": .string(target.token), "provider": .string(target.provider.rawValue), "status": .null,
                    "reason": skip.reason.map(RichPushJSONValue.string) ?? .null, "outcome": .string(PushOutcome.skipped.rawValue),
                    "message": .string("not sent: \(what) at \(since), and the app has not registered it again since (POST /v1/devices)"),
                ]))
        }
        var root: [String: RichPushJSONValue] = [
            "push_id": .string(request.pushID), "push_id_generated": .bool(request.pushIDGenerated),
            "sent": .int(sent), "accepted": .int(accepted), "skipped": .int(skipped.count), "results": .array(lines),
            "recorded": .bool(storeError == nil),
        ]
        if !request.mediaReport.isEmpty { root["media"] = .array(request.mediaReport) }
        if !usersWithoutDevices.isEmpty { root["users_without_devices"] = .array(usersWithoutDevices.map(RichPushJSONValue.string)) }
        if let storeError { root["store_error"] = .string("sent, but not recorded: \(storeError)") }
        var status = 200
        let apnsAnswers = results.filter { $0.provider == .apns && $0.result.status != nil }
        if let topic = request.requestTopic, let refusal = apnsAnswers.first(where: { topicReasons.contains($0.result.reasonCode ?? "") }),
            refusal.result.reasonCode != "DeviceTokenNotForTopic" || apnsAnswers.allSatisfy({ $0.result.reasonCode == "DeviceTokenNotForTopic" })
        {
            // The request's own topic was refused (every token, or the whole batch): the
            // request's field is wrong, not the server's settings.
            status = 422
            let reason = refusal.result.reasonCode ?? "TopicDisallowed"
            root["error"] = .object([
                "code": .string("topic_refused"), "field": .string("topic"),
                "message": .string(
                    "APNs refused the topic \"\(topic.prefix(256))\" this request gave (\(reason)): topic must be the bundle id of an app the server's APNs key may push to (its team's app, plus .voip, .complication … for those push types); fix topic, or leave it out to use the server's \(names.apnsTopic)"
                ),
            ])
        } else if let (provider, stop) = stops.first, stop.code != .providerConfiguration {
            // The provider (or its OAuth2 token endpoint) did not answer: nothing to fix in the
            // settings; the tokens not sent can be sent again.
            status = 502
            root["error"] = .object([
                "code": .string("\(provider)_unavailable"),
                "message": .string("\(provider.displayName) did not answer, so the batch stopped: \(stop.message); send the push again later"),
            ])
        } else if let (provider, stop) = stops.first {
            status = 502
            root["error"] = .object([
                "code": .string("\(provider)_configuration"),
                "message": .string(
                    provider == .apns
                        ? "APNs refused the server's APNs settings, so the batch stopped: \(stop.message) (richpush serve \(names.apnsKey)/\(names.apnsKeyID)/\(names.apnsTeamID)/\(names.apnsTopic))"
                        : "FCM refused the server's FCM settings, so the batch stopped: \(stop.message) (richpush serve \(names.fcmServiceAccount))"),
            ])
        }
        let body = RichPushJSONValue.object(root).jsonData(sortedKeys: true)
        return ServerResponse(status: status, contentType: "application/json", body: body + Data("\n".utf8))
    }
}
