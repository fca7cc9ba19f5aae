// RichPush beside another vendor's Notification Service Extension (issue 18).
// iOS runs one service extension per app: when OneSignal, Braze, CleverTap, Airship or Batch
// already provide it, keep theirs and add RichPush's display receipt (and optionally its media).
import Foundation
@_spi(RichPushInternal) import RichPushCore
@_spi(RichPushInternal) import RichPushExtension

#if canImport(UserNotifications)
@preconcurrency import UserNotifications
#else
@preconcurrency import UserNotificationsStandIn
#endif

/// RichPush's display receipt, and optionally its media, from inside another vendor's
/// Notification Service Extension, in a few lines: wrap iOS's content handler before handing it
/// to the vendor's SDK; when the SDK delivers, RichPush reports what is shown and passes it on.
///
/// ```swift
/// final class NotificationService: BrazeNotificationService.NotificationService {
///     let richPush = RichPushCompanion()
///     override func didReceive(_ request: UNNotificationRequest,
///                              withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
///         super.didReceive(request, withContentHandler: richPush.wrap(request, contentHandler: contentHandler))
///     }
///     override func serviceExtensionTimeWillExpire() {
///         richPush.serviceExtensionTimeWillExpire()
///         super.serviceExtensionTimeWillExpire()
///     }
/// }
/// ```
///
/// What it does with the content the vendor's SDK hands over:
/// - it sends the `delivered` receipt (`outcome` `media_attached` when the content has an
///   attachment, else `text_only`; `vendor`, the push id along `PushIDKeyPaths`: OneSignal's
///   `custom.i`, Airship's `_`, …), through the App Group queue when `AppGroupIdentifier` is set;
/// - with `addsMedia`, when the content has no attachment and the payload names media along
///   `MediaKeyPaths`, it runs RichPush's pipeline for the media first (its checks, its deadline)
///   and adds what it attached to the vendor's content (the pipeline's receipt then reports it);
/// - it hands the content to iOS's handler exactly once, after the receipt's answer or
///   `RichPushConfiguration.receiptWait` (default 2 s), whichever is first, at once after
///   `serviceExtensionTimeWillExpire()`.
///
/// Settings come from the extension's Info.plist `RichPush` dictionary (`RichPushSettings`), as
/// for `RichPushServiceExtension`, or from `init(configuration:addsMedia:transport:)`.
public final class RichPushCompanion: Sendable {
    /// Whether RichPush attaches the payload's media when the vendor's content has none.
    public let addsMedia: Bool
    private let configurationOverride: RichPushConfiguration?
    private let transport: any MediaTransport
    private let state = Locked(State())

    private struct State {
        var infoPlist: RichPushConfiguration?
        var requests: [ObjectIdentifier: Request] = [:]
    }

    /// Makes a companion.
    /// - Parameters:
    ///   - configuration: the settings; `nil` (the default) reads the main bundle's Info.plist
    ///     `RichPush` dictionary, with the App Group's shared state when `AppGroupIdentifier` is set.
    ///   - addsMedia: attach the payload's media when the vendor's content has none (default `false`).
    public convenience init(configuration: RichPushConfiguration? = nil, addsMedia: Bool = false) {
        self.init(configuration: configuration, addsMedia: addsMedia, transport: nil)
    }

    /// Makes a companion with its own HTTP layer (tests, the command line).
    /// - Parameters:
    ///   - configuration: the settings; `nil` reads the main bundle's Info.plist.
    ///   - addsMedia: attach the payload's media when the vendor's content has none.
    ///   - transport: the HTTP layer; `nil` for `NotificationPipeline.defaultTransport`.
    @_spi(RichPushInternal)
    public init(configuration: RichPushConfiguration?, addsMedia: Bool, transport: (any MediaTransport)?) {
        configurationOverride = configuration
        self.addsMedia = addsMedia
        self.transport = transport ?? NotificationPipeline.defaultTransport
    }

    /// The configuration used for each request: the one given, else the Info.plist's (read once).
    public var configuration: RichPushConfiguration {
        if let configurationOverride { return configurationOverride }
        if let cached = state.withLock({ $0.infoPlist }) { return cached }
        let configuration = RichPushServiceExtension.readInfoPlist()
        state.withLock { $0.infoPlist = configuration }
        return configuration
    }

    /// Wraps iOS's content handler for one request: give the result to the vendor's SDK in its
    /// place. When the SDK calls it, RichPush sends the receipt (and, with `addsMedia`, adds the
    /// media) and then calls `contentHandler`, exactly once.
    ///
    /// - Parameters:
    ///   - request: the request iOS passed to `didReceive`.
    ///   - contentHandler: iOS's content handler.
    /// - Returns: the handler to pass to the vendor's SDK.
    public func wrap(
        _ request: UNNotificationRequest, contentHandler: @escaping (UNNotificationContent) -> Void
    ) -> @Sendable (UNNotificationContent) -> Void {
        let pending = Request(request: request, handler: contentHandler, configuration: configuration)
        let key = ObjectIdentifier(pending)
        state.withLock { $0.requests[key] = pending }
        return { [self] content in handOver(content, key: key, request: pending) }
    }

    /// Delivers every request the vendor has handed over and RichPush still holds (waiting for
    /// the receipt or the media) at once, and makes later hand-overs go straight through.
    ///
    /// Call it first in `serviceExtensionTimeWillExpire()`, before the vendor's own expiry.
    public func serviceExtensionTimeWillExpire() {
        let pending = state.withLock { Array($0.requests.values) }
        for request in pending { request.expire() }
    }

    // MARK: Hand-over

    private func handOver(_ content: UNNotificationContent, key: ObjectIdentifier, request: Request) {
        guard request.begin(content) else { return }  // the vendor called twice: the first counts
        let configuration = request.configuration
        let payload = RichPushJSONValue(any: request.request.content.userInfo) ?? .null
        let elapsedMs = request.elapsedMs
        let named = !RichPushPayloadLookup.media(in: payload, keyPaths: configuration.mediaKeyPaths).urls.isEmpty
        if addsMedia, content.attachments.isEmpty, named, !request.isExpired {
            addMedia(to: content, payload: payload, key: key, request: request)
            return
        }
        let mediaType = content.attachments.first?.type
        let outcome: RichPushOutcome = mediaType == nil ? .textOnly : .mediaAttached
        // Media the payload named but the vendor's content lacks: its SDK knows why, RichPush does not.
        let reason: RichPushReasonCode? = mediaType == nil && !named ? .noMedia : nil
        let transport = self.transport
        let this = Reference(companion: self)
        let receipt = Task {
            let report = await DisplayReceipt.send(
                payload: payload, outcome: outcome, reason: reason, elapsedMs: elapsedMs, mediaType: mediaType,
                configuration: configuration, transport: transport)
            if let skip = report.skipReason { RichPushLog.error("receipt skipped: \(skip)") }
            this.companion.deliver(key: key, request: request)
        }
        request.attach(receipt)
        if request.isExpired {
            deliver(key: key, request: request)  // iOS's time is up: no waiting (the receipt goes on, or stays queued)
            return
        }
        let wait = max(0, min(configuration.receiptWait, configuration.deadline - Double(elapsedMs) / 1000))
        DispatchQueue.global().asyncAfter(deadline: .now() + wait) { this.companion.deliver(key: key, request: request) }
    }

    /// Runs RichPush's pipeline for the payload's media and adds what it attached to `content`.
    private func addMedia(to content: UNNotificationContent, payload: RichPushJSONValue, key: ObjectIdentifier, request: Request) {
        var configuration = request.configuration
        configuration.deadline = max(0.1, configuration.deadline - Double(request.elapsedMs) / 1000)
        // The vendor's SDK makes the content: RichPush adds media only (no avatar, no intent).
        configuration.communicationNotifications = false
        let pipeline = NotificationPipeline(configuration: configuration, transport: transport)
        let this = Reference(companion: self)
        let run = pipeline.start(
            payload: payload,
            validate: { media in
                do {
                    _ = try UNNotificationAttachment(
                        identifier: media.format.kind?.rawValue ?? "media", url: media.file,
                        options: [UNNotificationAttachmentOptionsTypeHintKey: media.format.uniformTypeIdentifier])
                } catch {
                    throw RichPushServiceExtension.rejection(for: error)
                }
            },
            deliver: { result in
                request.replaceContent { vendorContent in
                    let merged = (vendorContent.mutableCopy() as? UNMutableNotificationContent) ?? UNMutableNotificationContent()
                    var attachments: [UNNotificationAttachment] = []
                    for item in result.content.attachments {
                        let options = RichPushThumbnailOptions.attachmentOptions(result.details.thumbnail, typeHint: item.type)
                        if let attachment = try? UNNotificationAttachment(identifier: item.identifier, url: URL(fileURLWithPath: item.file), options: options) {
                            attachments.append(attachment)
                        }
                    }
                    merged.attachments = attachments
                    if merged.categoryIdentifier.isEmpty, !attachments.isEmpty { merged.categoryIdentifier = result.content.categoryIdentifier }
                    return merged
                }
                this.companion.deliver(key: key, request: request)
            })
        request.attach(run)
    }

    private func deliver(key: ObjectIdentifier, request: Request) {
        state.withLock { _ = $0.requests.removeValue(forKey: key) }
        request.deliver()
    }

    /// The companion as the `@Sendable` callbacks hold it.
    private struct Reference: Sendable {
        let companion: RichPushCompanion
    }

    /// One request: iOS's handler (called once), the vendor's content, what RichPush runs for it.
    ///
    /// `@unchecked Sendable`: the request, the handler and the content are Apple's non-Sendable
    /// types, which iOS lets an extension use from any thread; they are read and changed in
    /// `state` (a `Locked`), and the handler runs at most once.
    private final class Request: @unchecked Sendable {
        /// What changes while the request runs.
        private struct State {
            var handler: ((UNNotificationContent) -> Void)?
            var content: UNNotificationContent?
            var expired = false
            var run: PipelineRun?
            var receipt: Task<Void, Never>?
        }

        let request: UNNotificationRequest
        let configuration: RichPushConfiguration
        private let started = ContinuousClock.now
        private let state: Locked<State>

        init(request: UNNotificationRequest, handler: @escaping (UNNotificationContent) -> Void, configuration: RichPushConfiguration) {
            self.request = request
            self.state = Locked(State(handler: handler))
            self.configuration = configuration
        }

        var elapsedMs: Int {
            let (s, atto) = (ContinuousClock.now - started).components
            return Int(s * 1000 + atto / 1_000_000_000_000_000)
        }

        var isExpired: Bool { state.withLock { $0.expired } }

        /// Records the vendor's content; `false` when it was already handed over.
        func begin(_ content: UNNotificationContent) -> Bool {
            state.withLock { state in
                guard state.content == nil, state.handler != nil else { return false }
                state.content = content
                return true
            }
        }

        func replaceContent(_ change: (UNNotificationContent) -> UNNotificationContent) {
            state.withLock { state in if let content = state.content { state.content = change(content) } }
        }

        func attach(_ run: PipelineRun) { state.withLock { $0.run = run } }
        func attach(_ receipt: Task<Void, Never>) { state.withLock { $0.receipt = receipt } }

        /// Time is up: a held content goes now; the media run delivers its best attempt.
        func expire() {
            let (run, ready) = state.withLock { state -> (PipelineRun?, Bool) in
                state.expired = true
                return (state.run, state.content != nil)
            }
            run?.expire()
            if ready { deliver() }
        }

        /// Calls iOS's handler once with the content held.
        func deliver() {
            let (handler, content) = state.withLock { state -> (((UNNotificationContent) -> Void)?, UNNotificationContent?) in
                let content = state.content
                let handler = content == nil ? nil : state.handler
                if content != nil { state.handler = nil }
                return (handler, content)
            }
            if let handler, let content { handler(content) }
        }
    }
}
