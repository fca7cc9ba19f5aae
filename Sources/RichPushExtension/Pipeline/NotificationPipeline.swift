import Foundation

/// The notification service extension pipeline: payload in, content out, exactly once, on time.
///
/// For each notification it reads the payload, builds the best-attempt text content before any
/// network work, finds and normalises the media URL, fetches it to a file under every rule of
/// `MediaFetcher` within `RichPushConfiguration.deadline`, sniffs its type (Apple's table),
/// checks its structure (`RichPushMediaIntegrity`), runs the validation hook, attaches it, posts the
/// receipt, and delivers the content exactly once.
///
/// ```swift
/// let pipeline = NotificationPipeline(configuration: RichPushConfiguration())
/// let run = pipeline.start(payload: userInfoJSON) { result in contentHandler(result.content) }
/// // serviceExtensionTimeWillExpire(): run.expire()
/// ```
@_spi(RichPushInternal)
public final class NotificationPipeline: Sendable {
    /// The configuration every run uses.
    public let configuration: RichPushConfiguration
    /// The HTTP layer for media and receipts.
    public let transport: any MediaTransport

    /// The platform's default transport: libcurl on Linux, URLSession elsewhere.
    public static var defaultTransport: any MediaTransport {
        #if canImport(CCurl)
        return CurlMediaTransport()
        #else
        return URLSessionMediaTransport()
        #endif
    }

    /// Makes a pipeline.
    /// - Parameters:
    ///   - configuration: key paths, rules, deadline, ATS exceptions, receipts URL, folders.
    ///   - transport: the HTTP layer; `nil` for `defaultTransport`.
    public init(configuration: RichPushConfiguration, transport: (any MediaTransport)? = nil) {
        self.configuration = configuration
        self.transport = transport ?? Self.defaultTransport
    }

    /// Starts one notification.
    ///
    /// `deliver` is called exactly once, with the first of: the media attached, a failure (text
    /// only), the pipeline's deadline (`timeout`), or `PipelineRun.expire()`. It may be called
    /// before `start` returns (e.g. no media in the payload). Late completions are ignored and
    /// their files removed.
    /// - Parameters:
    ///   - payload: the notification's `userInfo` as JSON (normally an object with `aps`; see
    ///     `unreadablePayloadKey` for a payload that was not a JSON object).
    ///   - validate: an optional hook run on the downloaded file before the outcome is final, after
    ///     `RichPushMediaIntegrity` has passed it (the iOS bridge creates its `UNNotificationAttachment` here). Throw `RichPushMediaValidationError` to
    ///     refuse the file with a reason; any other error counts as `unsupported_format`. It runs
    ///     inside the deadline: if the deadline or `expire()` comes first, its work is discarded.
    ///   - intent: for a message from a person (the payload's `sender`), the platform part run once
    ///     its avatars are ready: make the intent, donate the interaction, check that the content
    ///     can be updated from it (the iOS bridge does, with Intents). Throwing falls back to the
    ///     normal notification with `intent_failed`. It runs inside the deadline; `nil`: no intent.
    ///   - deliver: receives the result; called exactly once, from any thread.
    /// - Returns: the run, to call `expire()` on or to await.
    @discardableResult
    public func start(
        payload: RichPushJSONValue,
        validate: (@Sendable (RichPushDownloadedMedia) async throws -> Void)? = nil,
        intent: (@Sendable (PreparedMessage) async throws -> Void)? = nil,
        deliver: @escaping @Sendable (RichPushResult) -> Void
    ) -> PipelineRun {
        let input: PipelineWork.Input
        if case .object(let fields) = payload, fields.count == 1, case .string(let problem)? = fields[Self.unreadablePayloadKey] {
            input = .unreadable(problem.value)
        } else {
            input = .parsed(payload)
        }
        let run = PipelineRun(pipeline: self, payload: input, validate: validate, intent: intent, deliver: deliver)
        run.begin()
        return run
    }

    /// The `userInfo` key that marks a payload that was not a JSON object (see
    /// `RichPushNotificationPayload.unreadablePayloadKey`).
    public static let unreadablePayloadKey = RichPushNotificationPayload.unreadablePayloadKey

    /// Starts one notification from raw payload bytes (see `start(payload:validate:intent:deliver:)`).
    ///
    /// Bytes that are not JSON give outcome `original`, reason `invalid_payload`.
    /// - Parameters:
    ///   - payload: UTF-8 JSON bytes.
    ///   - validate: the optional validation hook.
    ///   - intent: the optional platform part for a message's intent.
    ///   - deliver: receives the result exactly once.
    /// - Returns: the run.
    @discardableResult
    public func start(
        payload: Data,
        validate: (@Sendable (RichPushDownloadedMedia) async throws -> Void)? = nil,
        intent: (@Sendable (PreparedMessage) async throws -> Void)? = nil,
        deliver: @escaping @Sendable (RichPushResult) -> Void
    ) -> PipelineRun {
        let input: PipelineWork.Input
        do {
            input = .parsed(try RichPushJSONValue.parse(payload))
        } catch {
            input = .unreadable((error as? RichPushError)?.message ?? String(describing: error))
        }
        let run = PipelineRun(pipeline: self, payload: input, validate: validate, intent: intent, deliver: deliver)
        run.begin()
        return run
    }

    /// The stages of one run, in order (decrypt → content rules → media → communication intent →
    /// badge; the receipt follows the decision), and the media stage among them (its files
    /// outlive the run's decision).
    static func stages(
        configuration: RichPushConfiguration, transport: any MediaTransport, validate: (@Sendable (RichPushDownloadedMedia) async throws -> Void)?,
        intent: (@Sendable (PreparedMessage) async throws -> Void)?
    ) -> (all: [any PipelineStage], media: MediaStage) {
        let rules = ContentRules(defaultBody: configuration.defaultBody, mediaCategoryIdentifiers: configuration.mediaCategoryIdentifiers)
        let media = MediaStage(configuration: configuration, transport: transport, rules: rules, validate: validate)
        return (
            [
                DecryptStage(keys: configuration.keyProvider, pushIDKeyPaths: configuration.pushIDKeyPaths),
                ContentStage(rules: rules, pushIDKeyPaths: configuration.pushIDKeyPaths, buttonCategorySlots: configuration.buttonCategorySlots),
                media,
                CommunicationStage(configuration: configuration, transport: transport, intent: intent),
                BadgeStage(stateDirectory: configuration.stateDirectory, pushIDKeyPaths: configuration.pushIDKeyPaths),
            ], media
        )
    }

    /// Runs one notification to its delivered result (no expiry call).
    /// - Parameter payload: UTF-8 JSON bytes.
    /// - Returns: the delivered result.
    public func process(payload: Data) async -> RichPushResult {
        await start(payload: payload, deliver: { _ in }).result()
    }

    /// Runs one notification to its delivered result (no expiry call).
    /// - Parameter payload: the payload as JSON.
    /// - Returns: the delivered result.
    public func process(payload: RichPushJSONValue) async -> RichPushResult {
        await start(payload: payload, deliver: { _ in }).result()
    }
}
