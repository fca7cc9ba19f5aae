#if !canImport(UserNotifications)
import Foundation
import IntentsStandIn
import RichPushCore
import UserNotificationsStandIn

/// Runs a Notification Service Extension as iOS does, so its rules can be checked on Linux.
///
/// For each request: calls `didReceive(_:withContentHandler:)`; when the budget runs out with no
/// content handed over, calls `serviceExtensionTimeWillExpire()`; when the grace period after that
/// also passes, shows the request's original content. The first handler call wins: a second call is
/// recorded as a fault and its content ignored. The shown content's attachment files are *moved*
/// into the host's store, so the extension's paths no longer exist afterwards (iOS does the same).
/// Several requests can run on one extension instance, overlapping, as iOS may do when it keeps the
/// extension process alive.
///
/// - Important: Apple: about 30 s from `didReceive` to the content handler, then
///   `serviceExtensionTimeWillExpire()`. Apple does not publish how long it waits after that; the
///   grace period here models it.
public struct ExtensionHost: Sendable {
    /// Seconds from `didReceive` to `serviceExtensionTimeWillExpire()` (Apple: about 30).
    public var budget: Double
    /// Seconds after `serviceExtensionTimeWillExpire()` before the original content is shown.
    public var expiryGrace: Double
    /// The host's attachment store (iOS's data store): shown attachments are moved here.
    public var storeDirectory: URL
    /// What the system does with communication notifications (message intents) while it runs.
    public var communication: CommunicationSupport = .allowed

    /// What the system does with a message intent, as iOS does for the app being played.
    public enum CommunicationSupport: Sendable, Equatable {
        /// The app has the Communication Notifications capability: donations and updates succeed.
        case allowed
        /// The app lacks the capability: `updating(from:)` throws `contentProvidingObjectNotAllowed`.
        case notAllowed
        /// The system refuses the donation, with this message.
        case donationRefused(String)
    }

    /// Makes a host.
    /// - Parameters:
    ///   - storeDirectory: where shown attachments are moved; created when missing.
    ///   - budget: seconds before expiry (default 30, Apple's figure).
    ///   - expiryGrace: seconds after expiry before the original is shown (default 1).
    public init(storeDirectory: URL, budget: Double = 30, expiryGrace: Double = 1) {
        self.storeDirectory = storeDirectory
        self.budget = budget
        self.expiryGrace = expiryGrace
    }

    /// Runs one request on an extension instance.
    /// - Parameters:
    ///   - request: the request.
    ///   - service: the extension instance.
    /// - Returns: what was shown and how the extension behaved.
    public func run(_ request: UNNotificationRequest, on service: UNNotificationServiceExtension) async -> HostReport {
        let reports = await run([HostedRequest(request)], on: service)
        return reports[0]
    }

    /// Runs several requests on one extension instance, each starting at its own time.
    /// - Parameters:
    ///   - requests: the requests; they may overlap.
    ///   - service: the extension instance, shared by every request.
    /// - Returns: one report per request, in the same order.
    public func run(_ requests: [HostedRequest], on service: UNNotificationServiceExtension) async -> [HostReport] {
        // Process-wide, as the system's answers are: set for this run, then back to allowed (a
        // run that allows them leaves them alone, so runs of other suites do not undo it).
        switch communication {
        case .allowed: break
        case .notAllowed:
            UNNotificationContent.failUpdating(with: "the app is not allowed to show communication notifications (no Communication Notifications capability)")
        case .donationRefused(let message): INInteraction.setDonationFailure(message)
        }
        defer {
            if communication != .allowed {
                UNNotificationContent.failUpdating(with: nil)
                INInteraction.setDonationFailure(nil)
            }
        }
        let clock = ContinuousClock()
        let begin = clock.now
        let signal = HostSignal()
        let slots = requests.map { _ in RequestSlot() }
        let startAt = requests.map { begin + .milliseconds(Int64(max(0, $0.startAfter) * 1000)) }
        var started = Array(repeating: false, count: requests.count)
        var budgetEnd: [ContinuousClock.Instant?] = Array(repeating: nil, count: requests.count)
        var graceEnd: [ContinuousClock.Instant?] = Array(repeating: nil, count: requests.count)
        let budgetDuration = Duration.milliseconds(Int64(max(0, budget) * 1000))
        let graceDuration = Duration.milliseconds(Int64(max(0, expiryGrace) * 1000))

        while !slots.allSatisfy(\.isFinished) {
            var now = clock.now
            for index in requests.indices where !started[index] && now >= startAt[index] {
                started[index] = true
                slots[index].markStarted(at: now)
                budgetEnd[index] = now + budgetDuration
                let handler = makeHandler(slot: slots[index], request: requests[index].request, signal: signal, clock: clock)
                service.didReceive(requests[index].request, withContentHandler: handler)
                now = clock.now
            }
            // Budget over with nothing handed over: one expiry call covers every request in flight.
            let expiring = requests.indices.filter { index in
                graceEnd[index] == nil && slots[index].isInFlight && (budgetEnd[index].map { now >= $0 } ?? false)
            }
            if !expiring.isEmpty {
                for index in requests.indices where slots[index].isInFlight { slots[index].markExpiryCalled() }
                for index in expiring { graceEnd[index] = now + graceDuration }
                service.serviceExtensionTimeWillExpire()
                now = clock.now
            }
            for index in requests.indices {
                guard let end = graceEnd[index], now >= end, !slots[index].isClaimed else { continue }
                _ = slots[index].closeAsOriginal(Self.snapshot(requests[index].request.content, files: nil), at: now)
            }
            if slots.allSatisfy(\.isFinished) { break }

            var next: ContinuousClock.Instant?
            func consider(_ instant: ContinuousClock.Instant?) {
                guard let instant else { return }
                next = next.map { min($0, instant) } ?? instant
            }
            for index in requests.indices {
                if !started[index] { consider(startAt[index]) }
                if slots[index].isInFlight { consider(graceEnd[index] ?? budgetEnd[index]) }
            }
            // A claimed request whose content is being stored, or nothing scheduled: poll briefly.
            let wait = next.map { max(0, Self.seconds(from: clock.now, to: $0)) } ?? 0.01
            await signal.wait(seconds: min(wait, 1))
        }
        return requests.indices.map { index in
            slots[index].report(identifier: requests[index].request.identifier)
                ?? HostReport(
                    requestIdentifier: requests[index].request.identifier,
                    shown: Self.snapshot(requests[index].request.content, files: nil), shownOriginal: true,
                    expiryCalled: false, handlerCalls: 0, faults: [], attachmentsMovedTo: [], elapsedMs: 0,
                    peakMemoryBytes: ProcessMemory.peakResidentBytes()
                )
        }
    }

    /// The content handler iOS would pass: records the call, moves attachments, wakes the loop.
    private func makeHandler(
        slot: RequestSlot, request: UNNotificationRequest, signal: HostSignal, clock: ContinuousClock
    ) -> (UNNotificationContent) -> Void {
        let folder = storeDirectory.appendingPathComponent(Self.folderName(for: request.identifier), isDirectory: true)
        return { content in
            switch slot.claim() {
            case .again, .late:
                signal.signal()
            case .first:
                var moved: [String] = []
                var faults: [HostFault] = []
                var files: [String: (url: URL, bytes: Int)] = [:]
                for attachment in content.attachments {
                    do {
                        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                        let target = folder.appendingPathComponent("\(UUID().uuidString)-\(attachment.url.lastPathComponent)")
                        try FileManager.default.moveItem(at: attachment.url, to: target)
                        let size = (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? NSNumber)?.intValue ?? 0
                        files[attachment.identifier] = (target, size)
                        moved.append(target.path)
                    } catch {
                        faults.append(
                            HostFault(.attachmentMoveFailed, "attachment \(attachment.identifier) at \(attachment.url.path) could not be moved: \(error)")
                        )
                    }
                }
                if let communication = ShownCommunication(content) {
                    for (whose, avatar) in [("sender", communication.senderAvatar), ("group", communication.groupAvatar)] {
                        guard let avatar, !avatar.drawable else { continue }
                        faults.append(
                            HostFault(
                                .avatarNotDrawable,
                                "the \(whose)'s avatar is \(avatar.format?.name ?? "no image format iOS knows") (\(avatar.bytes) bytes); iOS draws JPEG, PNG or GIF"
                            ))
                    }
                }
                slot.fulfil(shown: Self.snapshot(content, files: files), moved: moved, faults: faults, at: clock.now)
                signal.signal()
            }
        }
    }

    /// A `Sendable` snapshot; attachments only where `files` has their new location (nil: as they are).
    static func snapshot(_ content: UNNotificationContent, files: [String: (url: URL, bytes: Int)]?) -> ShownContent {
        let attachments: [ShownContent.Attachment] = content.attachments.compactMap { attachment in
            if let files {
                guard let file = files[attachment.identifier] else { return nil }
                return ShownContent.Attachment(identifier: attachment.identifier, type: attachment.type, file: file.url, bytes: file.bytes)
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: attachment.url.path)[.size] as? NSNumber)?.intValue ?? 0
            return ShownContent.Attachment(identifier: attachment.identifier, type: attachment.type, file: attachment.url, bytes: size)
        }
        return ShownContent(
            title: content.title, subtitle: content.subtitle, body: content.body,
            categoryIdentifier: content.categoryIdentifier, threadIdentifier: content.threadIdentifier,
            badge: content.badge?.intValue, sound: content.sound?.payloadName,
            userInfo: RichPushJSONValue(any: content.userInfo), attachments: attachments,
            // iOS looks the category up when it shows the notification: record what it finds.
            registeredCategoryActions: UNUserNotificationCenter.current().registeredCategories()
                .first { $0.identifier == content.categoryIdentifier }?.actions.map(\.identifier),
            communication: ShownCommunication(content)
        )
    }

    private static func seconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Double {
        let d = end - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private static func folderName(for identifier: String) -> String {
        let safe = identifier.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "-" ? Character($0) : "_" }
        return String(safe.prefix(64)).isEmpty ? "request" : String(safe.prefix(64))
    }
}
#endif
