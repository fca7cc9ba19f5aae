import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The batch loop shared by the APNs and FCM clients: reads tokens from a `DeviceTokenSource` as
/// room frees up, sends each chunk's first requests through the transport's batch path, finishes
/// what needs more (retries, renewals, token state) in tasks of their own, and hands every final
/// result to the caller as it is known, so memory is bounded by the tokens in flight, not by the
/// number of tokens.
///
/// In flight at once: at most `chunksInFlight` chunks of `chunkSize` first requests, and at most
/// `maximumContinued` tokens that needed more than their first answer (new chunks wait meanwhile).
/// The batch stops at the first configuration error (every later request would fail the same
/// way), and gives up when `tokensWithoutAnswerBeforeGivingUp` tokens in a row got no answer at all;
/// the tokens after a stop are reported `not_sent` (the ones already on their way finish with
/// their own outcome: `retries_exhausted` when they got no answer either). A batch in which no
/// token got any answer stops the same way however few tokens it had: the endpoint is unreachable.
struct TokenBatch<Classifier: TokenAnswerClassifier>: Sendable {
    typealias Result = Classifier.Result
    /// One token after its first request.
    enum FirstAttempt: Sendable {
        /// Done: accepted, or not sendable (malformed token, no credentials).
        case finished(Result)
        /// Needs the retry loop (retry, renewal, token state, error message), from this response on.
        case continued(token: String, response: Swift.Result<TransportResponse, any Error>, credential: Classifier.Credential?)
    }

    /// First requests per transport batch.
    let chunkSize: Int
    /// Chunks of first requests in flight at once.
    let chunksInFlight = 3
    /// Tokens retrying (or otherwise past their first answer) at most, before new chunks wait.
    var maximumContinued: Int { max(64, chunkSize * 2) }
    /// Where requests go, for messages.
    let endpoint: String
    /// Finishes one token from its first response (and says which answers stop the batch).
    let loop: TokenRetryLoop<Classifier>
    /// Sends the first request of each token of a chunk.
    let firstAttempts: @Sendable ([String]) async -> [FirstAttempt]
    /// New chunks wait while a `Retry-After` holds.
    let pause: BatchPause

    /// Requests per token at most, for messages.
    private var maxAttempts: Int { loop.retry.maxAttempts }

    /// A configuration-error result for a token (a TLS setup that cannot work).
    private func configurationError(_ token: String, _ message: String) -> Result {
        Result(deviceToken: token, outcome: .configurationError, attempts: 1, message: message)
    }

    /// A `not_sent` result for a token after the batch stopped.
    private func notSent(_ token: String, _ why: String) -> Result {
        Result(deviceToken: token, outcome: .notSent, attempts: 0, message: "not sent: \(why)")
    }

    /// The error that stops the batch, for a configuration-error result.
    private func stopError(_ result: Result) -> RichPushError {
        RichPushError(
            code: .providerConfiguration,
            message: result.status == nil
                ? (result.message ?? "configuration error")
                : "\(loop.classifier.provider.displayName) answered \(result.status.map(String.init) ?? "-") \(result.reasonCode ?? ""): \(result.message ?? "")"
        )
    }

    /// Tokens in a row with no answer at all after which the batch gives up.
    static var tokensWithoutAnswerBeforeGivingUp: Int { 5 }

    /// Seconds after the host's last answer (to any request) during which a token without an
    /// answer does not count towards giving up.
    static var answerWindow: Double { 5 }

    /// What the loop gets back from its child tasks.
    private enum Step: Sendable {
        case chunk(Int, [FirstAttempt])
        case single(Int, Result)
    }

    /// Runs the batch.
    /// - Parameters:
    ///   - source: the tokens.
    ///   - onResult: called once per token, in the order results are known, with the token's
    ///     position in the source (0-based).
    /// - Returns: the totals and why the batch stopped, if it did.
    func run(_ source: any DeviceTokenSource, onResult: (Int, Result) -> Void) async -> PushBatchSummary {
        var summary = PushBatchSummary()
        var stoppedBy: RichPushError?
        var sourceDone = false
        var readFailed = false
        var nextIndex = 0
        // Tokens in a row with no answer at all after every attempt, and the last one's message.
        var tokensWithoutAnswer = 0
        var lastWithoutAnswer: String?
        let liveness = HostLiveness(transport: loop.transport)
        func record(_ index: Int, _ result: Result) {
            summary.add(result)
            onResult(index, result)
        }
        await withTaskGroup(of: Step.self) { group in
            var chunksRunning = 0
            var continued = 0
            // First requests that found no connection, in a row: new chunks wait (the tokens
            // already out retry with backoff) until a response arrives or the batch gives up.
            var connectionFailuresInARow = 0
            // A first answer said the configuration is wrong; its token is still being finished.
            var stopExpected = false

            func canStart() -> Bool {
                !sourceDone && stoppedBy == nil && !stopExpected && chunksRunning < chunksInFlight && continued < maximumContinued
                    && connectionFailuresInARow < Self.tokensWithoutAnswerBeforeGivingUp
            }
            func startChunks() async {
                while canStart() {
                    await pause.wait()
                    let tokens: [String]
                    do {
                        tokens = try await source.nextTokens(maximumCount: chunkSize)
                    } catch {
                        sourceDone = true
                        readFailed = true
                        stoppedBy = (error as? RichPushError) ?? RichPushError(code: .io, message: "cannot read the device tokens: \(error)", underlying: error)
                        return
                    }
                    guard !tokens.isEmpty else {
                        sourceDone = true
                        return
                    }
                    let first = nextIndex
                    nextIndex += tokens.count
                    chunksRunning += 1
                    let send = firstAttempts
                    group.addTask { .chunk(first, await send(tokens)) }
                }
            }
            func finish(_ index: Int, _ result: Result) {
                record(index, result)
                if result.status != nil { liveness.answered() }
                if result.outcome == .configurationError, stoppedBy == nil {
                    stoppedBy = stopError(result)
                }
                // No answer at all after every retry, for several tokens in a row: the host is
                // unreachable; the rest of the batch would only repeat it.
                if result.status != nil { connectionFailuresInARow = 0 }
                // Tokens without any answer count towards giving up only while the host answers
                // nothing: a request reset or lost while other requests get answers (a connection
                // reset among several) says nothing of reachability.
                if result.status == nil, liveness.hostAnswered(recently: Self.answerWindow) { return }
                if result.outcome == .retriesExhausted || result.outcome == .unknown, result.status == nil {
                    tokensWithoutAnswer += 1
                    lastWithoutAnswer = result.message
                    if tokensWithoutAnswer >= Self.tokensWithoutAnswerBeforeGivingUp, stoppedBy == nil {
                        stoppedBy = RichPushError(
                            code: .connectionFailed,
                            message:
                                "gave up the batch: \(tokensWithoutAnswer) tokens in a row got no answer from \(endpoint)\(result.outcome == .unknown || result.attempts == 0 ? "" : " after \(maxAttempts) attempts each") (\(result.message ?? "no answer")); check the host, port and network, then send again"
                        )
                    }
                } else if result.status != nil {
                    tokensWithoutAnswer = 0
                }
            }

            await startChunks()
            while let step = await group.next() {
                switch step {
                case .single(let index, let result):
                    continued -= 1
                    finish(index, result)
                    if continued == 0 { stopExpected = false }
                case .chunk(let first, let attempts):
                    chunksRunning -= 1
                    for (offset, attempt) in attempts.enumerated() {
                        switch attempt {
                        case .finished(let result):
                            finish(first + offset, result)
                        case .continued(let token, let response, let credential):
                            switch response {
                            case .failure(let error as RichPushError) where error.code == .tlsConfiguration:
                                // Retrying cannot fix a certificate: the batch stops here.
                                finish(first + offset, configurationError(token, error.message))
                                continue
                            case .failure(let error as RichPushError) where error.code == .connectionFailed:
                                connectionFailuresInARow += 1
                            case .failure: break
                            case .success(let answer):
                                connectionFailuresInARow = 0
                                if loop.classifier.isStopAnswer(answer) { stopExpected = true }
                            }
                            continued += 1
                            let loop = self.loop, pause = self.pause
                            group.addTask {
                                let start = Result(deviceToken: token, outcome: .rejected, attempts: 0, message: nil)
                                return .single(
                                    first + offset, await loop.deliver(to: token, result: start, firstResponse: response, credential: credential, pause: pause))
                            }
                        }
                    }
                }
                await startChunks()
            }
        }
        if !sourceDone, stoppedBy == nil {
            stoppedBy = RichPushError(
                code: .connectionFailed,
                message: "gave up the batch: the connection to \(endpoint) kept failing; check the host, port and network, then send again")
        }
        // Fewer tokens than it takes to give up, and not one answered: unreachable all the same.
        if stoppedBy == nil, summary.sent == 0, tokensWithoutAnswer > 0 {
            stoppedBy = RichPushError(
                code: .connectionFailed,
                message:
                    "no answer from \(endpoint): \(tokensWithoutAnswer) token\(tokensWithoutAnswer == 1 ? "" : "s") sent, none answered after \(maxAttempts) attempt\(maxAttempts == 1 ? "" : "s") each (\(lastWithoutAnswer ?? "no answer")); check the host, port and network, then send again"
            )
        }
        // Every token gets a line: the ones never sent are read and reported `not_sent`.
        if !readFailed, let stop = stoppedBy {
            let why = "the batch stopped (\(stop.message))"
            while !sourceDone {
                guard let tokens = try? await source.nextTokens(maximumCount: max(chunkSize, 1024)), !tokens.isEmpty else { break }
                for token in tokens {
                    record(nextIndex, notSent(token, why))
                    nextIndex += 1
                }
            }
        }
        summary.stoppedBy = stoppedBy
        return summary
    }
}

/// A pause shared by one batch: a `Retry-After` answer holds back new chunks until then.
final class BatchPause: Sendable {
    private let until = Locked<Date?>(nil)

    /// Holds new chunks until `seconds` from now (extends, never shortens, a pause in force).
    func hold(seconds: Double) {
        guard seconds > 0 else { return }
        let end = Date().addingTimeInterval(seconds)
        until.withLock { until in
            if until.map({ $0 < end }) ?? true { until = end }
        }
    }

    /// Waits until no pause is in force.
    func wait() async {
        while let end = until.withLock({ $0 }), end > Date() {
            try? await Task.sleep(nanoseconds: UInt64(max(0.001, end.timeIntervalSinceNow) * 1_000_000_000))
        }
    }
}

/// When the host last answered anything: a result with a status, or the transport's count of
/// answers going up (an HTTP/2 client counts every answer, of this batch or another).
final class HostLiveness {
    private let transport: any HTTPTransport
    private var lastCount: Int?
    private var lastAnswer: ContinuousClock.Instant?

    /// Starts watching (answers counted before now are not this batch's).
    init(transport: any HTTPTransport) {
        self.transport = transport
        lastCount = transport.connectionStatistics?.answered
    }

    /// A result of the batch had an answer.
    func answered() { lastAnswer = .now }

    /// Whether the host answered within the last `seconds`.
    func hostAnswered(recently seconds: Double) -> Bool {
        if let count = transport.connectionStatistics?.answered, count != lastCount {
            lastAnswer = .now
            lastCount = count
        }
        guard let lastAnswer else { return false }
        return ContinuousClock.now - lastAnswer < .milliseconds(Int(seconds * 1000))
    }
}
