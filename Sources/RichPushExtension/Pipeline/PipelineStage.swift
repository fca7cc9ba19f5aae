import Foundation

/// One step of the extension's work on a notification, with one contract for every step.
///
/// The pipeline is an ordered list of stages (decrypt → content rules → media → communication
/// intent → badge), then the receipt (`ReceiptStage`, after the outcome is decided). For each
/// notification:
/// 1. `prepare(_:)` runs on each stage in order, before any network work: it reads the payload
///    (as the stages before it left it) and shapes the best attempt (`PipelineWork.best`).
///    Local work only (the badge counter's file is the one write); never in an initialiser.
/// 2. `run(_:until:)` runs on every stage at once: the network work (media, avatars), each
///    recording what arrived in its own per-run state, so what arrived before the deadline
///    counts even when the rest did not.
/// 3. `conclude(_:work:stop:)` runs on each stage in order once the outcome is decided (every
///    `run` ended, the deadline passed, or the host expired the run): it applies what its `run`
///    gathered by then to the result.
/// 4. `finish(_:work:)` runs on each stage in order on every result that is delivered, the
///    best attempt included: the details and the rules that hold whatever happened.
///
/// A stage with nothing to do for a payload does nothing in each step: no stage is optional,
/// and the run never asks whether one is there.
protocol PipelineStage: Sendable {
    /// Reads the payload and shapes the best attempt; local work only, before any network work.
    /// - Parameter work: the notification so far.
    func prepare(_ work: inout PipelineWork)

    /// Whether `run(_:until:)` has network work for this notification (after `prepare`).
    /// - Parameter work: the prepared notification.
    /// - Returns: `false` when `run` would return at once.
    func hasWork(_ work: PipelineWork) -> Bool

    /// The network work, concurrent with the other stages'; records what arrives in the stage's
    /// own per-run state. Returns early when the task is cancelled.
    /// - Parameters:
    ///   - work: the prepared notification.
    ///   - deadline: the pipeline's deadline (nothing is read after it).
    func run(_ work: PipelineWork, until deadline: ContinuousClock.Instant) async

    /// Applies what `run` gathered by the time the outcome was decided.
    /// - Parameters:
    ///   - result: the result so far (the best attempt, then each earlier stage's part).
    ///   - work: the prepared notification.
    ///   - stop: why the outcome was decided now.
    func conclude(_ result: inout RichPushResult, work: PipelineWork, stop: PipelineStop)

    /// The details and the rules that hold for every delivered result (the best attempt too).
    /// - Parameters:
    ///   - result: the result to deliver.
    ///   - work: the prepared notification.
    func finish(_ result: inout RichPushResult, work: PipelineWork)
}

extension PipelineStage {
    func hasWork(_ work: PipelineWork) -> Bool { false }
    func run(_ work: PipelineWork, until deadline: ContinuousClock.Instant) async {}
    func conclude(_ result: inout RichPushResult, work: PipelineWork, stop: PipelineStop) {}
    func finish(_ result: inout RichPushResult, work: PipelineWork) {}
}

/// Why a run's outcome was decided when it was.
enum PipelineStop: Sendable, Equatable {
    /// Every stage's network work ended (or there was none).
    case completed
    /// The pipeline's own deadline passed first (`RichPushConfiguration.deadline`).
    case deadline(seconds: Double)
    /// The host called `expire()` first (iOS: `serviceExtensionTimeWillExpire()`).
    case expired

    /// Whether work that had not ended counts as timed out.
    var timedOut: Bool { self != .completed }
}
