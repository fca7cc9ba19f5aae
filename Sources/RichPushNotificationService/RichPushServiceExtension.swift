// The bridge between Apple's Notification Service Extension and the RichPush pipeline.
// One source file for iOS and Linux: on iOS it builds against UserNotifications; elsewhere
// against UserNotificationsStandIn, a strict subset of Apple's declarations.
import Foundation
@_spi(RichPushInternal) import RichPushCore
@_spi(RichPushInternal) import RichPushExtension

#if canImport(UserNotifications)
@preconcurrency import UserNotifications
#else
@preconcurrency import UserNotificationsStandIn
#endif

#if canImport(Intents)
@preconcurrency import Intents
#else
import IntentsStandIn
#endif

/// A Notification Service Extension that runs the RichPush pipeline: media attached, text rules
/// applied, a receipt sent, each request delivered exactly once and on time.
///
/// A whole extension can be:
/// ```swift
/// import RichPushNotificationService
///
/// final class NotificationService: RichPushServiceExtension {}
/// ```
/// Settings come from the `RichPush` dictionary of the extension's Info.plist (see
/// `RichPushSettings`), or from code by overriding `configuration`. Override `willDeliver(_:for:result:)`
/// to adjust the content before iOS shows it.
///
/// Each request keeps its own state (iOS may call `didReceive` again on the same instance, even
/// while an earlier request is still in flight); `serviceExtensionTimeWillExpire()` delivers every
/// request still in flight, each with its best attempt.
///
/// Payload buttons (issue 6) become a `UNNotificationCategory`: `richpush.b.<hash>` is registered
/// while the media downloads (the text is shown with it if the media fails), and when media is
/// attached the media category's button slot (`image.buttons.<n>`, so the content extension
/// listing it still shows the media) is registered before delivery. The request's content goes to
/// iOS only once its category is registered (iOS shows a category's buttons only if it is
/// registered when the notification is shown), waiting at most `categoryRegistrationWait`, never
/// past the pipeline's `deadline`, and not at all after `serviceExtensionTimeWillExpire()`.
///
/// - Important: Apple: about 30 s from `didReceive` to the content handler; the pipeline's own
///   `deadline` (default 25 s) ends media work before that. Attachments must be of Apple's table
///   within its limits (image 10 MB, audio 5 MB, video 50 MB) and pass RichPush's structure check
///   and `UNNotificationAttachment`; a file refused is reported with its reason and the text is
///   delivered without it.
/// - Note: Like Apple's class, not `Sendable`, so the one-line subclass compiles in Swift 6 mode.
///   iOS calls an extension from several threads and the pipeline calls back on its own: the only
///   mutable state, the requests in flight, is behind one lock, and `willDeliver(_:for:result:)`,
///   `validateAttachment(_:)` run on the pipeline's thread.
open class RichPushServiceExtension: UNNotificationServiceExtension {
    private let configurationOverride: RichPushConfiguration?
    /// The requests in flight, and the configuration read from Info.plist once.
    private let shared = Locked<(inFlight: [ObjectIdentifier: RequestContext], infoPlistConfiguration: RichPushConfiguration?)>(([:], nil))

    /// Makes the extension with its settings from the main bundle's Info.plist (`RichPush`).
    ///
    /// iOS makes the `NSExtensionPrincipalClass` with this initializer.
    public override init() {
        configurationOverride = nil
        super.init()
    }

    /// Makes the extension with a configuration given in code (the Info.plist is not read).
    /// - Parameter configuration: the pipeline configuration.
    public init(configuration: RichPushConfiguration) {
        configurationOverride = configuration
        super.init()
    }

    /// The pipeline configuration used for each request.
    ///
    /// Default: the one given to `init(configuration:)`, else the main bundle's Info.plist
    /// `RichPush` dictionary (problems in it are logged and the defaults used), with
    /// `attachmentsDirectory` in the App Group container when `AppGroupIdentifier` is set.
    /// Override to build it in code.
    open var configuration: RichPushConfiguration {
        if let configurationOverride { return configurationOverride }
        if let cached = shared.withLock({ $0.infoPlistConfiguration }) { return cached }
        let configuration = Self.readInfoPlist()
        shared.withLock { $0.infoPlistConfiguration = configuration }
        return configuration
    }

    /// The configuration from the main bundle's Info.plist; problems are logged once per instance
    /// (`RichPushCompanion` reads it the same way).
    static func readInfoPlist() -> RichPushConfiguration {
        let settings = RichPushSettings.read(infoDictionary: Bundle.main.infoDictionary)
        for problem in settings.problems { RichPushLog.error(problem) }
        var configuration = settings.pipeline
        #if canImport(Darwin)
        if let group = settings.appGroupIdentifier {
            if let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) {
                configuration.attachmentsDirectory = container.appendingPathComponent("Library/Caches/RichPush-attachments", isDirectory: true)
                // Issue 6: media cache, receipt queue, badge counter and key file in the App Group.
                for problem in configuration.useSharedContainer(container) { RichPushLog.error(problem) }
            } else {
                RichPushLog.error("App Group \(group) is not available to this extension: add it under Signing & Capabilities → App Groups")
            }
        }
        #endif
        return configuration
    }

    /// Makes the pipeline for one request; override to give it another transport (tests, the
    /// command line).
    /// - Parameter configuration: the configuration (`configuration`'s value for this request).
    /// - Returns: the pipeline.
    @_spi(RichPushInternal)
    open func makePipeline(configuration: RichPushConfiguration) -> NotificationPipeline {
        NotificationPipeline(configuration: configuration)
    }

    /// Called once per request just before the content goes to iOS; override to adjust it.
    ///
    /// The content already carries the pipeline's text, category and attachment. Runs on the
    /// pipeline's thread, before the deadline: keep it short and do no network work here.
    /// - Parameters:
    ///   - content: the content iOS will show; change it in place.
    ///   - request: the original request.
    ///   - result: what the pipeline did (outcome, reason, push id, receipt).
    open func willDeliver(_ content: UNMutableNotificationContent, for request: UNNotificationRequest, result: RichPushResult) {}

    /// Called once per request right after its pipeline run starts; override to observe it.
    ///
    /// For observers (logging, tests, `richpush simulate`): e.g. `run.waitUntilSettled()` gives the
    /// receipt's final status. Do not call `run.expire()` here; iOS decides when time is up.
    /// - Parameters:
    ///   - run: the request's pipeline run.
    ///   - request: the request.
    @_spi(RichPushInternal)
    open func didStart(_ run: PipelineRun, for request: UNNotificationRequest) {}

    /// Runs the pipeline on the request and calls `contentHandler` exactly once.
    /// - Parameters:
    ///   - request: the notification request iOS received.
    ///   - contentHandler: iOS's block for the content to show.
    open override func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        let configuration = self.configuration
        // The wait for a category registration ends at the pipeline's own deadline at the latest.
        let registrationDeadline = DispatchTime.now() + max(0, configuration.deadline)
        let context = RequestContext(
            request: request, defaultBody: configuration.defaultBody, registrationDeadline: registrationDeadline,
            registrationWait: categoryRegistrationWait, buttonSlots: configuration.buttonCategorySlots, contentHandler: contentHandler)
        let key = ObjectIdentifier(context)
        shared.withLock { $0.inFlight[key] = context }
        let payload = RichPushJSONValue(any: request.content.userInfo) ?? .null
        let pipeline = makePipeline(configuration: configuration)
        let this = CallbackReference(service: self)
        // The pipeline may deliver before `start` returns (nothing to download): until the category
        // is known, the context holds that result rather than handing it to iOS.
        let run = pipeline.start(
            payload: payload,
            validate: { media in try this.service.validateAttachment(media) },
            intent: { prepared in context.setIntent(try await CommunicationIntent.donate(prepared, for: context.request)) },
            deliver: { result in this.service.finish(key: key, context: context, result: result) }
        )
        context.attach(run)
        if let category = run.bestAttempt.details.category, !context.isRegistering(category.identifier) {
            // Payload buttons (issue 6): the text's category is registered while the media
            // downloads, so even the best attempt at expiry is shown with its buttons. (A result
            // delivered inside `start` may have started this registration already.)
            register(category, key: key, context: context)
        }
        // Until here a result the pipeline delivered is held (the registration was not known yet).
        if let held = context.started() { deliver(key: key, context: context, result: held) }
        didStart(run, for: request)
    }

    /// Starts registering `category`; a held result is delivered when the last registration ends.
    private func register(_ category: RichPushCategoryDescription, key: ObjectIdentifier, context: RequestContext) {
        context.registrationBegan(category.identifier)
        let this = CallbackReference(service: self)
        let slots = context.buttonSlots
        Task {
            let registered = await RichPushCategoryRegistry.register(category, slots: slots)
            guard let held = context.registrationEnded(preferred: category.identifier, registered: registered) else { return }
            this.service.deliver(key: key, context: context, result: held)
        }
    }

    /// The longest a delivery waits for its payload category's registration, in seconds: 2 by
    /// default (our bound; Apple's `getNotificationCategories` usually answers in milliseconds),
    /// and never past the pipeline's `deadline` or `serviceExtensionTimeWillExpire()`. Override to
    /// change it.
    open var categoryRegistrationWait: Double { 2 }

    /// Delivers every request still in flight now, each with its best attempt (text, no media).
    ///
    /// iOS calls this when the extension's time runs out; whatever is not handed over right after
    /// is replaced by the original content.
    open override func serviceExtensionTimeWillExpire() {
        let pending = shared.withLock { Array($0.inFlight) }
        for (key, context) in pending {
            if let held = context.expire() {
                // Delivered by the pipeline, waiting for its category registration: hand it over now.
                deliver(key: key, context: context, result: held)
            } else if let run = context.run {
                run.expire()
            } else {
                // Expiry raced `didReceive` before the pipeline started: show the request as it came.
                deliverOriginal(key: key, context: context)
            }
        }
    }

    // MARK: Delivery

    /// The pipeline's result: delivered now, or held until its category is registered.
    private func finish(key: ObjectIdentifier, context: RequestContext, result: RichPushResult) {
        if result.outcome != .original, let category = result.details.category, !context.isRegistering(category.identifier) {
            // Media attached: the buttons moved to the media category's slot, registered now.
            register(category, key: key, context: context)
        }
        guard context.hold(result) else {
            deliver(key: key, context: context, result: result)
            return
        }
        let remaining = Double(Int64(context.registrationDeadline.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9
        let wait = min(context.registrationWait, max(0, remaining))
        let this = CallbackReference(service: self)
        DispatchQueue.global().asyncAfter(deadline: .now() + wait) {
            guard let held = context.release() else { return }
            RichPushLog.error("category registration for \(context.request.identifier) took longer than \(wait) s; delivered without waiting")
            this.service.deliver(key: key, context: context, result: held)
        }
    }

    private func deliver(key: ObjectIdentifier, context: RequestContext, result: RichPushResult) {
        shared.withLock { _ = $0.inFlight.removeValue(forKey: key) }
        guard let handler = context.takeHandler() else { return }
        let request = context.request
        var result = result
        if let category = result.details.category {
            // The registry may have moved a button slot to a free one.
            let registered = context.registeredIdentifier(for: category.identifier)
            if registered != category.identifier {
                if result.content.categoryIdentifier == category.identifier { result.content.categoryIdentifier = registered }
                result.details.category?.identifier = registered
            }
        }
        let (content, delivered) = Self.makeContent(for: request, result: result, defaultBody: context.defaultBody)
        willDeliver(content, for: request, result: delivered)
        // A message from a person: the content updated from its intent (a communication
        // notification); the pipeline checked that iOS accepts the update before it decided.
        if delivered.details.communication?.shown == true, let intent = context.intent {
            do {
                handler(try content.updating(from: intent))
                return
            } catch {
                RichPushLog.error("\(request.identifier): the content could not be updated from its message intent: \(error.localizedDescription)")
            }
        }
        handler(content)
    }

    private func deliverOriginal(key: ObjectIdentifier, context: RequestContext) {
        shared.withLock { _ = $0.inFlight.removeValue(forKey: key) }
        guard let handler = context.takeHandler() else { return }
        handler(context.request.content)
    }

    /// The content to show: the request's content with what the pipeline changed, and its attachment.
    ///
    /// Text fields are taken from the result only where the pipeline changed them from what the
    /// payload says, so iOS's own work (localized `loc-key` text) is kept.
    static func makeContent(
        for request: UNNotificationRequest, result: RichPushResult, defaultBody: String?
    ) -> (UNMutableNotificationContent, RichPushResult) {
        let content = (request.content.mutableCopy() as? UNMutableNotificationContent) ?? UNMutableNotificationContent()
        var result = result
        guard result.outcome != .original else { return (content, result) }
        let json = RichPushJSONValue(any: request.content.userInfo) ?? .null
        let payloadContent = (try? RichPushNotificationPayload(json: json)).map(RichPushNotificationContent.init(payload:)) ?? RichPushNotificationContent()
        let wanted = result.content
        if wanted.title != payloadContent.title { content.title = wanted.title }
        if wanted.subtitle != payloadContent.subtitle { content.subtitle = wanted.subtitle }
        if wanted.body != payloadContent.body, content.body.isEmpty || wanted.body != defaultBody {
            content.body = wanted.body
        }
        if wanted.categoryIdentifier != payloadContent.categoryIdentifier { content.categoryIdentifier = wanted.categoryIdentifier }
        if wanted.threadIdentifier != payloadContent.threadIdentifier { content.threadIdentifier = wanted.threadIdentifier }
        if wanted.badge != payloadContent.badge { content.badge = wanted.badge.map { NSNumber(value: $0) } }

        var attachments: [UNNotificationAttachment] = []
        for item in wanted.attachments {
            let file = URL(fileURLWithPath: item.file)
            do {
                attachments.append(
                    try UNNotificationAttachment(
                        identifier: item.identifier, url: file,
                        options: RichPushThumbnailOptions.attachmentOptions(result.details.thumbnail, typeHint: item.type)))
            } catch {
                // Validated by the pipeline's hook already; the file changed since. Text only.
                RichPushLog.error("attachment \(item.identifier) refused at delivery: \(error.localizedDescription)")
                try? FileManager.default.removeItem(at: file)
                let rejection = rejection(for: error)
                result.outcome = .textOnly
                result.reason = rejection.reason
                result.message = rejection.message
            }
        }
        if attachments.count != wanted.attachments.count {
            attachments = []
            content.categoryIdentifier = request.content.categoryIdentifier
            result.content.attachments = []
            result.content.categoryIdentifier = request.content.categoryIdentifier
        }
        content.attachments = attachments
        return (content, result)
    }

    // MARK: Attachment validation

    /// Checks a downloaded file before it is attached: it must pass `UNNotificationAttachment`'s
    /// own checks (readable, a type of Apple's table from the hint, within its size limit), so a
    /// file iOS would refuse is reported with its reason (and in the receipt). The pipeline has
    /// already checked the file's structure (`RichPushMediaIntegrity`: iOS validates the content only
    /// after the hand-over, when nothing can be reported).
    ///
    /// Runs on the pipeline's thread, within its deadline. Override to add checks (call `super`).
    /// - Parameter media: the downloaded file, its sniffed format and size.
    /// - Throws: `RichPushMediaValidationError` with the reason to report (see `rejection(for:)`).
    open func validateAttachment(_ media: RichPushDownloadedMedia) throws {
        do {
            _ = try UNNotificationAttachment(
                identifier: media.format.kind?.rawValue ?? "media", url: media.file,
                options: [UNNotificationAttachmentOptionsTypeHintKey: media.format.uniformTypeIdentifier])
        } catch {
            throw Self.rejection(for: error)
        }
    }

    /// Maps `UNNotificationAttachment`'s error to the reason reported in the result and the receipt.
    ///
    /// `attachmentInvalidFileSize` → `too_large`; `attachmentCorrupt` → `corrupt_media`; every other
    /// refusal (unrecognized type, file missing or unreadable, data store) → `unsupported_format`.
    /// - Parameter error: what `UNNotificationAttachment(identifier:url:options:)` threw.
    /// - Returns: the validation error with the reason to report.
    public static func rejection(for error: any Error) -> RichPushMediaValidationError {
        let message = "UNNotificationAttachment refused the file: \(error.localizedDescription)"
        guard let code = (error as? UNError)?.code else {
            return RichPushMediaValidationError(reason: .unsupportedFormat, message: message)
        }
        switch code {
        case .attachmentInvalidFileSize: return RichPushMediaValidationError(reason: .tooLarge, message: message)
        case .attachmentCorrupt: return RichPushMediaValidationError(reason: .corruptMedia, message: message)
        default: return RichPushMediaValidationError(reason: .unsupportedFormat, message: message)
        }
    }

    // MARK: Per-request state

    /// The extension as the pipeline's `@Sendable` callbacks hold it.
    ///
    /// `@unchecked Sendable`: iOS itself calls an extension instance from several threads; what the
    /// callbacks touch is the lock-protected registry and per-request contexts.
    private struct CallbackReference: @unchecked Sendable {
        let service: RichPushServiceExtension
    }

    /// One request in flight: its content handler (taken exactly once), its pipeline run, and the
    /// gate that holds its result while its categories are being registered.
    ///
    /// `@unchecked Sendable`: the handler is Apple's non-Sendable block, which iOS allows to be
    /// called from any thread; it is read and cleared under the lock, so it runs at most once.
    private final class RequestContext: @unchecked Sendable {
        let request: UNNotificationRequest
        let defaultBody: String?
        let registrationDeadline: DispatchTime
        let registrationWait: Double
        let buttonSlots: Int
        /// What changes while the request is in flight.
        private struct State {
            var contentHandler: ((UNNotificationContent) -> Void)?
            /// The message's intent, once donated (a communication notification).
            var intent: INSendMessageIntent?
            var pipelineRun: PipelineRun?
            /// `didReceive` has not finished starting the request: whether there is a category is not known yet.
            var starting = true
            /// Registrations started and not ended.
            var pending = 0
            /// Time is up (expiry or the wait's bound): nothing waits any more.
            var open = false
            var held: RichPushResult?
            /// Identifiers being registered or registered → the identifier the registry used.
            var registered: [String: String] = [:]

            /// The held result once nothing keeps it any more (taken).
            mutating func releasable() -> RichPushResult? {
                guard !starting, pending == 0, let result = held else { return nil }
                held = nil
                return result
            }
        }

        private let state: Locked<State>

        init(
            request: UNNotificationRequest, defaultBody: String?, registrationDeadline: DispatchTime, registrationWait: Double,
            buttonSlots: Int, contentHandler: @escaping (UNNotificationContent) -> Void
        ) {
            self.request = request
            self.defaultBody = defaultBody
            self.registrationDeadline = registrationDeadline
            self.registrationWait = registrationWait
            self.buttonSlots = buttonSlots
            self.state = Locked(State(contentHandler: contentHandler))
        }

        /// Whether `identifier` was already registered (or is being) for this request.
        func isRegistering(_ identifier: String) -> Bool {
            state.withLock { $0.registered[identifier] != nil }
        }

        /// Records that the registration of `identifier` started.
        func registrationBegan(_ identifier: String) {
            state.withLock { s in
                s.pending += 1
                if s.registered[identifier] == nil { s.registered[identifier] = identifier }
            }
        }

        /// Records that a registration ended; returns the held result when nothing is pending any more.
        func registrationEnded(preferred: String, registered identifier: String) -> RichPushResult? {
            state.withLock { s in
                s.pending -= 1
                s.registered[preferred] = identifier
                return s.releasable()
            }
        }

        /// `didReceive` has started the request; returns a held result that may go now.
        func started() -> RichPushResult? {
            state.withLock { s in
                s.starting = false
                return s.releasable()
            }
        }

        /// Keeps `result` while a registration is pending; `false` when it may go now.
        func hold(_ result: RichPushResult) -> Bool {
            state.withLock { s in
                guard !s.open, s.starting || s.pending > 0 else { return false }
                s.held = result
                return true
            }
        }

        /// The wait is over (bound passed): the held result, once.
        func release() -> RichPushResult? {
            state.withLock { s in
                s.open = true
                defer { s.held = nil }
                return s.held
            }
        }

        /// iOS's time is up: nothing waits any more; returns the held result, if any.
        func expire() -> RichPushResult? { release() }

        /// The identifier a category was registered under (`preferred` until its registration ended).
        func registeredIdentifier(for preferred: String) -> String {
            state.withLock { $0.registered[preferred] ?? preferred }
        }

        /// The pipeline run, once started.
        var run: PipelineRun? { state.withLock { $0.pipelineRun } }

        /// The message's intent, once donated.
        var intent: INSendMessageIntent? { state.withLock { $0.intent } }

        /// Keeps the donated intent for delivery.
        func setIntent(_ intent: INSendMessageIntent) { state.withLock { $0.intent = intent } }

        /// Records the started run.
        func attach(_ run: PipelineRun) { state.withLock { $0.pipelineRun = run } }

        /// The content handler the first time, `nil` after.
        func takeHandler() -> ((UNNotificationContent) -> Void)? {
            state.withLock { s in
                let handler = s.contentHandler
                s.contentHandler = nil
                return handler
            }
        }
    }
}
