import Foundation
@_spi(RichPushInternal) import RichPushCore

/// One notification going through the pipeline: its best attempt, its expiry, its result.
///
/// Delivery is a latch: the first of success, failure, the deadline or `expire()` decides the
/// outcome; delivery happens once (after a bounded wait for the receipt, which `expire()` cuts
/// short). Anything that completes later is ignored and its files are removed.
public final class PipelineRun: Sendable {
    enum Input: Sendable {
        case parsed(JSONValue)
        case unreadable(String)
    }

    private struct State {
        var decided: PipelineResult?
        var delivered: PipelineResult?
        var deliver: (@Sendable (PipelineResult) -> Void)?
        var resultWaiters: [CheckedContinuation<PipelineResult, Never>] = []
        var fetchTask: Task<Void, Never>?
        var timerTask: Task<Void, Never>?
        var receiptTask: Task<ReceiptReport, Never>?
        var receiptFinal: ReceiptReport?
    }

    /// The text content built before any network work, as it would be delivered now.
    ///
    /// Outcome `text_only` (or `original` for an unreadable payload), receipt `pending`.
    public let bestAttempt: PipelineResult

    private let configuration: PipelineConfiguration
    private let transport: any MediaTransport
    private let input: Input
    private let payload: RichPushNotificationPayload?
    /// The payload as JSON (after decryption), `nil` when unreadable.
    private let json: JSONValue?
    private let validate: (@Sendable (DownloadedMedia) async throws -> Void)?
    private let rules: ContentRules
    private let started: ContinuousClock.Instant
    private let deadline: ContinuousClock.Instant
    private let receiptID = UUID().uuidString.lowercased()
    private let state: Locked<State>
    private let depth: DepthStage?

    init(
        pipeline: NotificationPipeline, payload input: Input,
        validate: (@Sendable (DownloadedMedia) async throws -> Void)?,
        deliver: @escaping @Sendable (PipelineResult) -> Void
    ) {
        started = ContinuousClock.now
        configuration = pipeline.configuration
        transport = pipeline.transport
        deadline = started + .milliseconds(Int(max(0, configuration.deadline) * 1000))
        self.input = input
        self.validate = validate
        rules = ContentRules(defaultBody: configuration.defaultBody, mediaCategoryIdentifiers: configuration.mediaCategoryIdentifiers)
        state = Locked(State(deliver: deliver))

        var json: JSONValue?
        var parsed: RichPushNotificationPayload?
        var problem: String?
        var depth: DepthStage?
        switch input {
        case .parsed(let received):
            // Decrypt first: the best attempt below shows the decrypted text (issue 6).
            depth = DepthStage(payload: received, configuration: pipeline.configuration)
            let value = depth?.decryption.payload ?? received
            json = value
            do { parsed = try RichPushNotificationPayload(json: value) } catch {
                problem = (error as? RichPushError)?.message ?? String(describing: error)
            }
        case .unreadable(let message):
            problem = message
        }
        payload = parsed
        self.depth = depth
        let found = json.flatMap { PayloadLookup.pushID(in: $0, keyPaths: pipeline.configuration.pushIDKeyPaths) }
        let pushID = found?.value
        let vendor = json.flatMap(PushVendor.recognise)
        self.json = json
        if let parsed {
            var best = PipelineResult(
                outcome: .textOnly, reason: nil, httpStatus: nil, pushID: pushID, elapsedMs: 0,
                content: depth?.adjust(rules.bestAttempt(from: parsed)) ?? rules.bestAttempt(from: parsed), receipt: ReceiptReport(status: .pending),
                message: "best attempt: text only"
            )
            best.pushIDKeyPath = found?.path
            best.vendor = vendor
            depth?.finalize(&best)  // details (category, thumbnail, decryption) known before any network work
            bestAttempt = best
        } else {
            var original = PipelineResult(
                outcome: .original, reason: .invalidPayload, httpStatus: nil, pushID: pushID, elapsedMs: 0,
                content: ContentRules.original(from: json), receipt: ReceiptReport(status: .pending),
                message: "invalid payload: \(problem ?? "unreadable")"
            )
            original.pushIDKeyPath = found?.path
            original.vendor = vendor
            bestAttempt = original
        }
    }

    /// Delivers the best attempt now (as iOS's `serviceExtensionTimeWillExpire()` asks).
    ///
    /// Idempotent. If the outcome is already decided (e.g. the media is attached and delivery is
    /// waiting for the receipt), that outcome is delivered at once. Work still running is
    /// cancelled; its files are removed when it ends.
    public func expire() {
        let decided = state.withLock { $0.decided }
        if let decided {
            deliverNow(decided)
        } else {
            var result = bestAttempt
            if result.outcome == .textOnly {
                result.reason = .timeout
                result.message = "the host's time ran out before the media arrived"
            }
            decide(result, waitForReceipt: false)
        }
    }

    /// Waits for the delivered result.
    /// - Returns: the result passed to `deliver`.
    public func result() async -> PipelineResult {
        await withCheckedContinuation { (c: CheckedContinuation<PipelineResult, Never>) in
            let ready: PipelineResult? = state.withLock { s in
                if let d = s.delivered { return d }
                s.resultWaiters.append(c)
                return nil
            }
            if let ready { c.resume(returning: ready) }
        }
    }

    /// Waits until nothing of this run is left running: the fetch has ended (late files
    /// removed) and the receipt has its final status. Call after delivery (e.g. before a
    /// command-line process exits); bounded by the deadline and `receiptTimeout`.
    /// - Returns: the receipt's final report.
    @discardableResult
    public func waitUntilSettled() async -> ReceiptReport {
        _ = await result()
        let (fetch, receipt) = state.withLock { ($0.fetchTask, $0.receiptTask) }
        await fetch?.value
        if let receipt { return await receipt.value }
        return state.withLock { $0.receiptFinal } ?? .skipped
    }

    // MARK: - Running

    func begin() {
        guard let payload else {
            decide(bestAttempt, waitForReceipt: true)
            return
        }
        var base = bestAttempt
        let media = PayloadLookup.media(in: json ?? payload.root, keyPaths: configuration.mediaKeyPaths)
        let single = media.isSingleString ? media.urls.first : nil
        if let depth, depth.wantsList(singleURL: single) {
            beginList(depth, base: base)
            return
        }
        guard let raw = single else {
            base.reason = .noMedia
            base.message = "the payload names no media (looked at \(configuration.mediaKeyPaths.map(\.description).joined(separator: ", ")))"
            if !media.deepLinks.isEmpty {
                base.message += "; url \(media.deepLinks.joined(separator: ", ")) is a link, not media (not fetched)"
            }
            decide(base, waitForReceipt: true)
            return
        }
        let url: URL
        do {
            url = try MediaURL.normalize(raw)
        } catch {
            base.reason = .badURL
            base.message = (error as? FetchFailure)?.message ?? "bad media URL"
            decide(base, waitForReceipt: true)
            return
        }
        base.mediaURL = url
        let initial = base
        let folder = configuration.attachmentsDirectory.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: true)
        let fetcher = MediaFetcher(
            transport: transport, allowedHTTPHosts: configuration.allowedHTTPHosts, attachableFormats: configuration.attachableFormats,
            sendsURLCredentials: configuration.sendsMediaURLCredentials)
        let deadline = self.deadline
        let validate = self.validate
        let rules = self.rules
        let fetchTask = Task { [self] in
            var result = initial
            let fetched: Result<DownloadedMedia, FetchFailure>
            do throws(FetchFailure) {
                if let depth {
                    fetched = .success(try await depth.fetch(url, fetcher: fetcher, into: folder, deadline: deadline))
                } else {
                    fetched = .success(try await fetcher.fetch(url, into: folder, deadline: deadline))
                }
            } catch {
                fetched = .failure(error)
            }
            switch fetched {
            case .success(let media):
                do {
                    try MediaIntegrity.verify(media)
                    try await validate?(media)
                    result.outcome = .mediaAttached
                    result.reason = nil
                    result.httpStatus = media.httpStatus
                    result.content = rules.attaching(media, to: initial.content)
                    result.message = "attached \(media.format.name), \(media.bytes) bytes"
                } catch {
                    try? FileManager.default.removeItem(at: folder)
                    let validation = error as? MediaValidationError
                    result.reason = validation?.reason ?? .unsupportedFormat
                    result.httpStatus = media.httpStatus
                    result.message = "the attachment was refused: \(validation?.message ?? String(describing: error))"
                }
            case .failure(let failure):
                result.reason = failure.reason
                result.httpStatus = failure.httpStatus
                result.message = failure.message
            }
            if !decide(result, waitForReceipt: true) {
                // Late: the deadline or expire() won. Nothing of ours may stay on disk.
                try? FileManager.default.removeItem(at: folder)
            }
        }
        armDeadline(for: fetchTask, timeout: initial, message: "the pipeline's deadline (\(configuration.deadline) s) passed before the media arrived")
    }

    /// Several media URLs (issue 6): fetched concurrently within the deadline, attached in order.
    private func beginList(_ depth: DepthStage, base: PipelineResult) {
        let folder = configuration.attachmentsDirectory.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: true)
        let fetcher = MediaFetcher(
            transport: transport, allowedHTTPHosts: configuration.allowedHTTPHosts, attachableFormats: configuration.attachableFormats,
            sendsURLCredentials: configuration.sendsMediaURLCredentials)
        let fetchTask = Task { [self] in
            let result = await depth.fetchAll(initial: base, fetcher: fetcher, folder: folder, deadline: deadline, rules: rules, validate: validate)
            if !decide(result, waitForReceipt: true) { try? FileManager.default.removeItem(at: folder) }
        }
        armDeadline(for: fetchTask, timeout: base, message: "the pipeline's deadline (\(configuration.deadline) s) passed before any media arrived")
    }

    /// Races `fetchTask` against the pipeline's deadline: at the deadline `timeout` is decided with
    /// reason `timeout` (the latch makes the loser a no-op). Both tasks are kept so a decision
    /// cancels them; if the run was already decided, they are cancelled at once.
    private func armDeadline(for fetchTask: Task<Void, Never>, timeout: PipelineResult, message: String) {
        let timerTask = Task { [self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled else { return }
            var result = timeout
            result.reason = .timeout
            result.message = message
            decide(result, waitForReceipt: true)
        }
        let alreadyDecided = state.withLock { s -> Bool in
            s.fetchTask = fetchTask
            s.timerTask = timerTask
            return s.decided != nil
        }
        if alreadyDecided {
            fetchTask.cancel()
            timerTask.cancel()
        }
    }

    /// The latch: the first call fixes the outcome, starts the receipt and schedules delivery.
    /// - Returns: `false` when an outcome was already decided (the caller is late).
    @discardableResult
    private func decide(_ proposed: PipelineResult, waitForReceipt: Bool) -> Bool {
        var result = proposed
        result.elapsedMs = Self.milliseconds(ContinuousClock.now - started)
        depth?.finalize(&result)
        let tasks: (Task<Void, Never>?, Task<Void, Never>?)? = state.withLock { s in
            guard s.decided == nil else { return nil }
            s.decided = result
            return (s.fetchTask, s.timerTask)
        }
        guard let tasks else { return false }
        tasks.0?.cancel()
        tasks.1?.cancel()

        guard let receiptsURL = configuration.receiptsURL, let pushID = result.pushID else {
            let skip = ReceiptSkipReason.check(
                payload: json, pushID: result.pushID, receiptsURL: configuration.receiptsURL, pushIDKeyPaths: configuration.pushIDKeyPaths)
            let skipped = ReceiptReport(status: .skipped, skipReason: skip)
            result.receipt = skipped
            let flush = depth?.flushQueued(transport: transport, skipped: skipped)
            state.withLock { s in
                s.receiptFinal = skipped
                s.receiptTask = flush
                s.decided = result
            }
            deliverNow(result)
            return true
        }
        let receipt = RichPushReceipt(
            pushID: pushID, event: .delivered, receiptID: receiptID, outcome: result.outcome, reason: result.reason,
            elapsedMs: result.elapsedMs, mediaBytes: result.content.attachments.first?.bytes,
            mediaType: result.content.attachments.first?.type, vendor: result.vendor?.identifier
        )
        let sender = ReceiptSender(
            transport: transport, allowedHTTPHosts: configuration.allowedHTTPHosts,
            timeout: .milliseconds(Int(max(0.001, configuration.receiptTimeout) * 1000))
        )
        let decidedResult = result
        // Delivery waits for the receipt's answer at most `receiptWait`, never past the deadline,
        // and not at all when the host expired the run: whichever of the answer and that bound
        // comes first delivers (delivery is idempotent), and expire() delivers at once.
        let receiptTask = Task { [self] in
            let report = if let depth { await depth.send(receipt, to: receiptsURL, sender: sender) } else { await sender.send(receipt, to: receiptsURL) }
            state.withLock { $0.receiptFinal = report }
            if waitForReceipt { deliverNow(decidedResult) }
            return report
        }
        state.withLock { $0.receiptTask = receiptTask }
        let wait = min(.milliseconds(Int(max(0, configuration.receiptWait) * 1000)), deadline - ContinuousClock.now)
        if !waitForReceipt || wait <= .zero {
            deliverNow(decidedResult)
        } else {
            Task { [self] in
                try? await Task.sleep(for: wait)
                deliverNow(decidedResult)
            }
        }
        return true
    }

    /// Delivers once; later calls are ignored. The receipt status is the final one if known.
    private func deliverNow(_ decided: PipelineResult) {
        let (handler, waiters, result): ((@Sendable (PipelineResult) -> Void)?, [CheckedContinuation<PipelineResult, Never>], PipelineResult?) = state.withLock
        { s in
            guard s.delivered == nil else { return (nil, [], nil) }
            var result = decided
            result.receipt = s.receiptFinal ?? ReceiptReport(status: .pending, receiptID: receiptID)
            s.delivered = result
            let handler = s.deliver
            s.deliver = nil
            let waiters = s.resultWaiters
            s.resultWaiters = []
            return (handler, waiters, result)
        }
        guard let result else { return }
        DepthStage.log(result, configuration: configuration)
        handler?(result)
        for waiter in waiters { waiter.resume(returning: result) }
    }

    private static func milliseconds(_ d: Duration) -> Int {
        let (s, atto) = d.components
        return Int(s * 1000 + atto / 1_000_000_000_000_000)
    }
}
