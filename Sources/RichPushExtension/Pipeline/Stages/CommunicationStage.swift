import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Stage 4: a message from a person (the payload's `sender` and `conversation`) becomes a
/// communication notification: the avatars are fetched under the media rules within the same
/// deadline (converted where iOS would not draw them, kept as data), then the platform part
/// (`intent`) makes the intent, donates the interaction and checks that the content can be
/// updated from it. Any failure falls back to the normal rich notification, with `avatar_failed`
/// or `intent_failed` (as the reason when nothing else went wrong: `details.communication` always says).
///
/// One instance per run: it records how far it got, so a deadline falls back on what is missing.
final class CommunicationStage: PipelineStage {
    /// How far the run got.
    private struct State {
        /// Whether an avatar named has not ended yet (set by `prepare`).
        var avatarsPending = false
        var prepared: PreparedMessage?
        var outcome: RichPushResultDetails.Communication?
    }

    private let configuration: RichPushConfiguration
    private let avatars: AvatarFetcher
    private let intent: (@Sendable (PreparedMessage) async throws -> Void)?
    private let state = Locked(State())

    /// Makes the stage for one run (no I/O).
    /// - Parameters:
    ///   - configuration: the key paths, ATS exceptions, attachments folder and avatar converter.
    ///   - transport: the HTTP layer.
    ///   - intent: the platform part that makes and donates the intent; `nil` when there is none
    ///     (the pipeline alone reports the message and its avatars, and makes no intent).
    init(configuration: RichPushConfiguration, transport: any MediaTransport, intent: (@Sendable (PreparedMessage) async throws -> Void)?) {
        self.configuration = configuration
        self.intent = intent
        avatars = AvatarFetcher(
            transport: transport, allowedHTTPHosts: configuration.allowedHTTPHosts, sendsURLCredentials: configuration.sendsMediaURLCredentials,
            converter: configuration.avatarConverter)
    }

    func prepare(_ work: inout PipelineWork) {
        guard configuration.communicationNotifications, work.isReadable, let json = work.json else { return }
        let reading = RichPushMessage.read(
            from: json, senderKeyPaths: configuration.senderKeyPaths, conversationKeyPaths: configuration.conversationKeyPaths)
        if let message = reading.message {
            work.message = message
            let avatars = message.sender.avatar != nil || (message.conversation.isGroup && message.conversation.avatar != nil)
            state.withLock { $0.avatarsPending = avatars }
            work.best.details.communication = RichPushResultDetails.Communication(message: message, note: "pending")
        } else if let problem = reading.problems.first(where: \.isError) {
            work.best.details.communication = RichPushResultDetails.Communication(message: nil, fallback: .intentFailed, note: problem.description)
        }
    }

    func hasWork(_ work: PipelineWork) -> Bool { work.message != nil }

    func run(_ work: PipelineWork, until deadline: ContinuousClock.Instant) async {
        guard let message = work.message else { return }
        let folder = configuration.attachmentsDirectory.appendingPathComponent("avatars-" + UUID().uuidString.lowercased(), isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let conversationAvatar = message.conversation.isGroup ? message.conversation.avatar : nil
        async let sender = fetch(message.sender.avatar, into: folder.appendingPathComponent("sender"), deadline: deadline)
        async let group = fetch(conversationAvatar, into: folder.appendingPathComponent("conversation"), deadline: deadline)
        let fetched = await (sender, group)
        var report = RichPushResultDetails.Communication(message: message)
        switch fetched {
        case (.failure(let failure), _), (_, .failure(let failure)):
            // Which one: the sender's when both failed (each failure names its URL's problem).
            let whose = if case .failure = fetched.0 { "the sender's avatar" } else { "the group's avatar" }
            // The one that arrived is still reported (the notification falls back all the same).
            if case .success(let image) = fetched.0 { report.senderAvatar = image.map(RichPushResultDetails.Communication.Avatar.init) }
            if case .success(let image) = fetched.1 { report.conversationAvatar = image.map(RichPushResultDetails.Communication.Avatar.init) }
            report.fallback = .avatarFailed
            report.note = "\(whose) failed (\(failure.reason)): \(failure.message); the normal notification is shown"
            state.withLock { $0.avatarsPending = false }
        case (.success(let senderImage), .success(let groupImage)):
            report.senderAvatar = senderImage.map(RichPushResultDetails.Communication.Avatar.init)
            report.conversationAvatar = groupImage.map(RichPushResultDetails.Communication.Avatar.init)
            let prepared = PreparedMessage(message: message, text: work.best.content.body, senderAvatar: senderImage, conversationAvatar: groupImage)
            state.withLock {
                $0.avatarsPending = false
                $0.prepared = prepared
            }
            guard !Task.isCancelled else { return }
            if let intent {
                do {
                    try await intent(prepared)
                    report.shown = true
                    report.note = "shown as a communication notification"
                } catch {
                    report.fallback = .intentFailed
                    report.note = "the intent failed: \(Self.describe(error)); the normal notification is shown"
                }
            } else {
                report.note = "no intent made: the pipeline alone has no platform part (RichPushServiceExtension makes the intent)"
            }
        }
        let outcome = report
        state.withLock { $0.outcome = outcome }
    }

    private func fetch(_ raw: String?, into folder: URL, deadline: ContinuousClock.Instant) async -> Result<AvatarImage?, AvatarFailure> {
        guard let raw else { return .success(nil) }
        do {
            return .success(try await avatars.avatar(raw, folder: folder, deadline: deadline))
        } catch {
            return .failure(error)
        }
    }

    func conclude(_ result: inout RichPushResult, work: PipelineWork, stop: PipelineStop) {
        guard let message = work.message else {
            if let report = work.best.details.communication, let fallback = report.fallback { Self.fallBack(&result, to: fallback) }
            return
        }
        let (outcome, pending, prepared) = state.withLock { ($0.outcome, $0.avatarsPending, $0.prepared) }
        var report: RichPushResultDetails.Communication
        if let outcome {
            report = outcome
        } else {
            report = RichPushResultDetails.Communication(message: message)
            report.senderAvatar = prepared?.senderAvatar.map(RichPushResultDetails.Communication.Avatar.init)
            report.conversationAvatar = prepared?.conversationAvatar.map(RichPushResultDetails.Communication.Avatar.init)
            let when = stop == .expired ? "the host's time ran out" : "the pipeline's deadline passed"
            report.fallback = pending ? .avatarFailed : .intentFailed
            report.note = "\(when) before the \(pending ? "avatar arrived (timeout)" : "intent was donated"); the normal notification is shown"
        }
        result.details.communication = report
        if let fallback = report.fallback { Self.fallBack(&result, to: fallback) }
    }

    /// The reason of a fallback, when the media gives none of its own (attached, or none named).
    private static func fallBack(_ result: inout RichPushResult, to reason: RichPushReasonCode) {
        if result.reason == nil || result.reason == .noMedia { result.reason = reason }
    }

    /// An error in a sentence: an `NSError`'s localized description (UserNotifications', Intents'),
    /// else the error as Swift prints it.
    private static func describe(_ error: any Error) -> String {
        if let failure = error as? AvatarFailure { return failure.message }
        if let text = (error as NSError).userInfo[NSLocalizedDescriptionKey] as? String, !text.isEmpty { return text }
        return String(describing: error)
    }
}
