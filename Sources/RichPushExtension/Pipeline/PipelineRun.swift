import Foundation
@_spi(RichPushInternal) import RichPushCore

/// One notification going through the pipeline: its best attempt, its expiry, its result.
///
/// The run takes the pipeline's stages in order (`PipelineStage`): each prepares its part of the
/// best attempt before any network work; their network work runs at once under one deadline;
/// when it has all ended — or the deadline passes, or `expire()` comes — each stage in order
/// applies what it gathered by then, and the receipt is sent.
///
/// Delivery is a latch: the first of success, failure, the deadline or `expire()` decides the
/// outcome; delivery happens once (after a bounded wait for the receipt, which `expire()` cuts
/// short). Anything that completes later is ignored and its files are removed.
@_spi(RichPushInternal)
public final class PipelineRun: Sendable {
    private struct State {
        var work: PipelineWork?
        var decided: RichPushResult?
        var delivered: RichPushResult?
        var deliver: (@Sendable (RichPushResult) -> Void)?
        var resultWaiters: [CheckedContinuation<RichPushResult, Never>] = []
        var workTask: Task<Void, Never>?
        var timerTask: Task<Void, Never>?
        var receiptTask: Task<RichPushReceiptReport, Never>?
        var receiptFinal: RichPushReceiptReport?
    }

    private let configuration: RichPushConfiguration
    private let input: PipelineWork.Input
    private let stages: [any PipelineStage]
    private let media: MediaStage
    private let receipts: ReceiptStage
    private let started: ContinuousClock.Instant
    private let deadline: ContinuousClock.Instant
    private let receiptID = UUID().uuidString.lowercased()
    private let state: Locked<State>

    /// Makes a run; nothing is read, written or fetched until `begin()`.
    init(
        pipeline: NotificationPipeline, payload input: PipelineWork.Input,
        validate: (@Sendable (RichPushDownloadedMedia) async throws -> Void)?, intent: (@Sendable (PreparedMessage) async throws -> Void)?,
        deliver: @escaping @Sendable (RichPushResult) -> Void
    ) {
        started = ContinuousClock.now
        configuration = pipeline.configuration
        deadline = started + .milliseconds(Int(max(0, configuration.deadline) * 1000))
        self.input = input
        let stages = NotificationPipeline.stages(configuration: configuration, transport: pipeline.transport, validate: validate, intent: intent)
        self.stages = stages.all
        media = stages.media
        receipts = ReceiptStage(configuration: configuration, transport: pipeline.transport)
        state = Locked(State(deliver: deliver))
    }

    /// The text content built before any network work, as it would be delivered now.
    ///
    /// Outcome `text_only` (or `original` for an unreadable payload), receipt `pending`.
    public var bestAttempt: RichPushResult {
        state.withLock { $0.work.map { finished($0.best, work: $0) } } ?? PipelineWork(input).best
    }

    /// Delivers the best attempt now (as iOS's `serviceExtensionTimeWillExpire()` asks).
    ///
    /// Idempotent. If the outcome is already decided (e.g. the media is attached and delivery is
    /// waiting for the receipt), that outcome is delivered at once. Otherwise what the stages
    /// gathered so far is applied (media that arrived is attached, the rest is `timeout`); work
    /// still running is cancelled and its files are removed when it ends.
    public func expire() {
        let (decided, work) = state.withLock { ($0.decided, $0.work) }
        if let decided {
            deliverNow(decided)
        } else if let work {
            decide(conclude(work, stop: .expired), work: work, waitForReceipt: false)
        }
    }

    /// Waits for the delivered result.
    /// - Returns: the result passed to `deliver`.
    public func result() async -> RichPushResult {
        await withCheckedContinuation { (c: CheckedContinuation<RichPushResult, Never>) in
            let ready: RichPushResult? = state.withLock { s in
                if let d = s.delivered { return d }
                s.resultWaiters.append(c)
                return nil
            }
            if let ready { c.resume(returning: ready) }
        }
    }

    /// Waits until nothing of this run is left running: the stages' work has ended (late files
    /// removed) and the receipt has its final status. Call after delivery (e.g. before a
    /// command-line process exits); bounded by the deadline and `receiptTimeout`.
    /// - Returns: the receipt's final report.
    @discardableResult
    public func waitUntilSettled() async -> RichPushReceiptReport {
        _ = await result()
        let (work, receipt) = state.withLock { ($0.workTask, $0.receiptTask) }
        await work?.value
        if let receipt { return await receipt.value }
        return state.withLock { $0.receiptFinal } ?? .skipped
    }

    // MARK: - Running

    /// Prepares every stage in order, then decides at once (nothing to fetch) or starts the
    /// stages' network work under the deadline.
    func begin() {
        var work = PipelineWork(input)
        for stage in stages { stage.prepare(&work) }
        state.withLock { $0.work = work }
        guard work.isReadable else {
            decide(work.best, work: work, waitForReceipt: true)
            return
        }
        let working = stages.filter { $0.hasWork(work) }
        guard !working.isEmpty else {
            decide(conclude(work, stop: .completed), work: work, waitForReceipt: true)
            return
        }
        let deadline = self.deadline
        let prepared = work
        let workTask = Task { [self] in
            await withTaskGroup(of: Void.self) { group in
                for stage in working { group.addTask { await stage.run(prepared, until: deadline) } }
            }
            if !decide(conclude(prepared, stop: .completed), work: prepared, waitForReceipt: true) {
                // Late: the deadline or expire() won. Nothing it does not show may stay on disk.
                media.removeUnshown(keeping: state.withLock { $0.decided } ?? prepared.best)
            }
        }
        let timerTask = Task { [self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled else { return }
            decide(conclude(prepared, stop: .deadline(seconds: configuration.deadline)), work: prepared, waitForReceipt: true)
        }
        let alreadyDecided = state.withLock { s -> Bool in
            s.workTask = workTask
            s.timerTask = timerTask
            return s.decided != nil
        }
        if alreadyDecided {
            workTask.cancel()
            timerTask.cancel()
        }
    }

    /// The best attempt with each stage's part applied, in stage order.
    private func conclude(_ work: PipelineWork, stop: PipelineStop) -> RichPushResult {
        var result = work.best
        guard work.isReadable else { return result }
        for stage in stages { stage.conclude(&result, work: work, stop: stop) }
        return result
    }

    /// A result with every stage's details and rules applied.
    private func finished(_ result: RichPushResult, work: PipelineWork) -> RichPushResult {
        var result = result
        for stage in stages { stage.finish(&result, work: work) }
        return result
    }

    /// The latch: the first call fixes the outcome, starts the receipt and schedules delivery.
    /// - Returns: `false` when an outcome was already decided (the caller is late).
    @discardableResult
    private func decide(_ proposed: RichPushResult, work: PipelineWork, waitForReceipt: Bool) -> Bool {
        var result = proposed
        result.elapsedMs = Self.milliseconds(ContinuousClock.now - started)
        result = finished(result, work: work)
        let tasks: (Task<Void, Never>?, Task<Void, Never>?)? = state.withLock { s in
            guard s.decided == nil else { return nil }
            s.decided = result
            return (s.workTask, s.timerTask)
        }
        guard let tasks else { return false }
        tasks.0?.cancel()
        tasks.1?.cancel()

        switch receipts.send(result, payload: work.json, receiptID: receiptID) {
        case .skipped(let skipped, let flushing):
            result.receipt = skipped
            state.withLock { s in
                s.receiptFinal = skipped
                s.receiptTask = flushing
                s.decided = result
            }
            deliverNow(result)
        case .sending(let sending):
            let decidedResult = result
            // Delivery waits for the receipt's answer at most `receiptWait`, never past the
            // deadline, and not at all when the host expired the run: whichever of the answer and
            // that bound comes first delivers (delivery is idempotent), and expire() delivers at once.
            let receiptTask = Task { [self] in
                let report = await sending.value
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
        }
        return true
    }

    /// Delivers once; later calls are ignored. The receipt status is the final one if known.
    private func deliverNow(_ decided: RichPushResult) {
        let (handler, waiters, result): ((@Sendable (RichPushResult) -> Void)?, [CheckedContinuation<RichPushResult, Never>], RichPushResult?) = state.withLock
        { s in
            guard s.delivered == nil else { return (nil, [], nil) }
            var result = decided
            result.receipt = s.receiptFinal ?? RichPushReceiptReport(status: .pending, receiptID: receiptID)
            s.delivered = result
            let handler = s.deliver
            s.deliver = nil
            let waiters = s.resultWaiters
            s.resultWaiters = []
            return (handler, waiters, result)
        }
        guard let result else { return }
        configuration.logger.log(NotificationLogLine(result))
        handler?(result)
        for waiter in waiters { waiter.resume(returning: result) }
    }

    /// Whole milliseconds of a duration.
    static func milliseconds(_ d: Duration) -> Int {
        let (s, atto) = d.components
        return Int(s * 1000 + atto / 1_000_000_000_000_000)
    }
}
