import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The extension-depth steps a `PipelineRun` calls at a few well-defined points (issue 6):
/// decryption before the best attempt is built; badge, buttons and thumbnail options read from
/// the (decrypted) payload; the media cache around each fetch; several media URLs fetched
/// concurrently; receipts through the on-disk queue; one log line at delivery.
final class DepthStage: Sendable {
    private struct Metrics {
        var fetchMs = 0
        var cacheHits = 0
    }

    let configuration: PipelineConfiguration
    /// The payload after decryption (the one every later step reads).
    let decryption: DecryptedPayload
    /// The media URLs named, in order.
    let mediaURLs: [String]
    let category: NotificationCategoryDescription?
    /// Whether the payload names its own `aps.category` (then the buttons keep that identifier).
    let payloadNamesCategory: Bool
    let thumbnail: ThumbnailOptions?
    let badge: Int?
    let notes: [String]
    private let metrics = Locked(Metrics())

    /// Opens the envelope and reads the issue-6 payload keys. Applies `badge_op` (once per push).
    init(payload: JSONValue, configuration: PipelineConfiguration) {
        self.configuration = configuration
        decryption = DecryptedPayload.open(payload, keys: configuration.keyProvider, pushIDKeyPaths: configuration.pushIDKeyPaths)
        let p = decryption.payload
        mediaURLs = MediaURLList.urls(in: p, keyPaths: configuration.mediaKeyPaths)
        var notes: [String] = []
        payloadNamesCategory = !(p["aps"]?["category"]?.stringValue ?? "").isEmpty
        do {
            category = try NotificationCategoryDescription.parse(payload: p, category: p["aps"]?["category"]?.stringValue)
        } catch {
            category = nil
            notes.append(error.code.rawValue)
        }
        do {
            thumbnail = try ThumbnailOptions.parse(payload: p)
        } catch {
            thumbnail = nil
            notes.append(error.code.rawValue)
        }
        var badge: Int?
        if let raw = p[BadgeOperation.payloadKey] {
            if let operation = BadgeOperation(json: raw) {
                if let directory = configuration.stateDirectory {
                    let pushID = PayloadLookup.pushID(in: p, keyPaths: configuration.pushIDKeyPaths)?.value
                    // A second run for the same push (iOS retry, provider resend) must not count twice.
                    let first = pushID.map { (try? SeenPushStore(directory: directory).markSeen("badge:" + $0)) ?? true } ?? true
                    if first {
                        badge = try? BadgeCounter(directory: directory).apply(operation)
                        if badge == nil { notes.append("badge_io") }
                    } else {
                        badge = try? BadgeCounter(directory: directory).current()
                        notes.append("badge_repeat")
                    }
                } else {
                    notes.append("badge_no_container")
                }
            } else {
                notes.append("invalid_badge_op")
            }
        }
        self.badge = badge
        self.notes = notes
    }

    /// The best attempt's content, with the badge and the buttons' category.
    func adjust(_ content: RichPushNotificationContent) -> RichPushNotificationContent {
        var content = content
        if let badge { content.badge = badge }
        if let category { content.categoryIdentifier = category.identifier }
        return content
    }

    /// Whether the media key holds a list (or several URLs) rather than one string.
    func wantsList(singleURL: String?) -> Bool {
        mediaURLs.count > 1 || (singleURL == nil && !mediaURLs.isEmpty)
    }

    // MARK: - Media

    /// Fetches one URL, from the cache when it holds a fresh copy (no network request), and
    /// stores what the network brought when `Cache-Control` allows.
    func fetch(_ url: URL, fetcher: MediaFetcher, into folder: URL, deadline: ContinuousClock.Instant) async throws(FetchFailure) -> DownloadedMedia {
        let started = ContinuousClock.now
        defer {
            let ms = Self.milliseconds(ContinuousClock.now - started)
            metrics.withLock { $0.fetchMs = max($0.fetchMs, ms) }
        }
        if let cache = configuration.mediaCache, let media = cachedCopy(url, cache: cache, folder: folder) {
            metrics.withLock { $0.cacheHits += 1 }
            return media
        }
        let media = try await fetcher.fetch(url, into: folder, deadline: deadline)
        if let cache = configuration.mediaCache {
            _ = try? cache.store(url.absoluteString, file: media.file, cacheControl: media.cacheControl)
        }
        return media
    }

    /// Fetches several URLs concurrently within the deadline (each into its own sub-folder) and
    /// attaches each that succeeds, in payload order.
    func fetchAll(
        initial: PipelineResult, fetcher: MediaFetcher, folder: URL, deadline: ContinuousClock.Instant,
        rules: ContentRules, validate: (@Sendable (DownloadedMedia) async throws -> Void)?
    ) async -> PipelineResult {
        // Finish a little before the pipeline's own timer, so what arrived is attached.
        let margin = Duration.milliseconds(300)
        let own = deadline - ContinuousClock.now > margin * 2 ? deadline - margin : deadline
        let urls = mediaURLs
        let outcomes = await withTaskGroup(of: (Int, Result<DownloadedMedia, FetchFailure>).self) { group in
            for (index, raw) in urls.enumerated() {
                group.addTask {
                    let url: URL
                    do {
                        url = try MediaURL.normalize(raw)
                    } catch {
                        return (index, .failure(FetchFailure(.badURL, "media \(index + 1) is not a usable URL")))
                    }
                    let sub = folder.appendingPathComponent(String(index), isDirectory: true)
                    do throws(FetchFailure) {
                        let media = try await self.fetch(url, fetcher: fetcher, into: sub, deadline: own)
                        do {
                            try MediaIntegrity.verify(media)
                            try await validate?(media)
                        } catch {
                            try? FileManager.default.removeItem(at: sub)
                            let validation = error as? MediaValidationError
                            return (index, .failure(FetchFailure(validation?.reason ?? .unsupportedFormat, validation?.message ?? "refused")))
                        }
                        return (index, .success(media))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var all: [(Int, Result<DownloadedMedia, FetchFailure>)] = []
            for await outcome in group { all.append(outcome) }
            return all.sorted { $0.0 < $1.0 }
        }
        var result = initial
        var attachments: [RichPushNotificationContent.Attachment] = []
        var firstFailure: FetchFailure?
        for (_, outcome) in outcomes {
            switch outcome {
            case .success(let media):
                let attached = rules.attaching(media, to: result.content)
                result.content.categoryIdentifier = attached.categoryIdentifier
                for var attachment in attached.attachments {
                    let taken = attachments.filter { $0.identifier.hasPrefix(attachment.identifier) }.count
                    if taken > 0 { attachment.identifier += "-\(taken + 1)" }
                    attachments.append(attachment)
                }
                result.httpStatus = result.httpStatus ?? media.httpStatus
            case .failure(let failure):
                firstFailure = firstFailure ?? failure
            }
        }
        result.content.attachments = attachments
        if attachments.isEmpty {
            result.reason = firstFailure?.reason ?? .noMedia
            result.httpStatus = firstFailure?.httpStatus
            result.message = "none of \(urls.count) media attached: \(firstFailure?.message ?? "")"
        } else {
            result.outcome = .mediaAttached
            result.reason = nil
            result.message = "attached \(attachments.count) of \(urls.count) media"
        }
        return result
    }

    private func cachedCopy(_ url: URL, cache: MediaCache, folder: URL) -> DownloadedMedia? {
        let temporary = folder.appendingPathComponent(".cached-\(UUID().uuidString.lowercased())")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            guard let bytes = try cache.retrieve(url.absoluteString, to: temporary), bytes > 0 else { return nil }
            let handle = try FileHandle(forReadingFrom: temporary)
            let prefix = try handle.read(upToCount: MediaFormat.sniffLength) ?? Data()
            try handle.close()
            guard let format = MediaFormat.sniff(prefix), let kind = format.kind, configuration.attachableFormats.contains(format),
                bytes <= kind.maximumBytes
            else {
                try? FileManager.default.removeItem(at: temporary)
                return nil
            }
            let file = folder.appendingPathComponent("\(kind.rawValue)-\(UUID().uuidString.lowercased()).\(format.fileExtension)")
            try FileManager.default.moveItem(at: temporary, to: file)
            return DownloadedMedia(file: file, folder: folder, format: format, bytes: bytes, url: url, httpStatus: 200, redirects: 0)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            return nil
        }
    }

    // MARK: - Result, receipt, log

    /// Fills `details` and applies the decrypt rule: a failed decryption is the reason whenever
    /// media was not attached.
    func finalize(_ result: inout PipelineResult) {
        let m = metrics.withLock { $0 }
        var details = PipelineDetails()
        details.decryption = decryption.wasEncrypted ? (decryption.error?.code.rawValue ?? "decrypted") : nil
        details.mediaRequested = mediaURLs.count
        details.mediaAttached = result.content.attachments.count
        details.cacheHits = m.cacheHits
        details.fetchMs = m.fetchMs
        details.category = category.map { buttonCategory($0, for: result.content) }
        if let category = details.category, result.outcome != .original { result.content.categoryIdentifier = category.identifier }
        details.thumbnail = thumbnail
        details.badge = badge
        details.notes = notes
        result.details = details
        if m.cacheHits > 0 && mediaURLs.count == 1 { result.httpStatus = nil }
        if let error = decryption.error, result.outcome == .textOnly {
            result.reason = .decryptFailed
            result.message = "the encrypted payload could not be decrypted (\(error.code)); the server's alert is shown"
        }
    }

    /// The buttons' category for what is delivered: with media attached (and no `aps.category`),
    /// the button slot of the media's category (`image.buttons.2`), so the content extension that
    /// shows the media still gets the notification; without media, `richpush.b.<hash>`.
    func buttonCategory(_ category: NotificationCategoryDescription, for content: RichPushNotificationContent) -> NotificationCategoryDescription {
        guard !payloadNamesCategory, configuration.buttonCategorySlots > 0,
            let type = content.attachments.first?.type, let kind = MediaFormat.forUniformTypeIdentifier(type)?.kind,
            let base = configuration.mediaCategoryIdentifiers[kind], !base.isEmpty
        else { return category }
        var slotted = category
        let slot = NotificationCategoryDescription.preferredButtonSlot(for: category.buttons, slots: configuration.buttonCategorySlots)
        slotted.identifier = NotificationCategoryDescription.buttonSlotIdentifier(base: base, slot: slot)
        return slotted
    }

    /// Sends the receipt through the on-disk queue (stable `receipt_id`, once per push) when a
    /// state directory is configured, else directly (`DisplayReceipt.deliver`).
    func send(_ receipt: RichPushReceipt, to url: URL, sender: ReceiptSender) async -> ReceiptReport {
        await DisplayReceipt.deliver(receipt, to: url, sender: sender, configuration: configuration)
    }

    /// Sends receipts queued by earlier runs (when this run sends none of its own); the task
    /// ends with `skipped`, this run's own report.
    func flushQueued(transport: any MediaTransport, skipped: ReceiptReport) -> Task<ReceiptReport, Never>? {
        guard let directory = configuration.stateDirectory else { return nil }
        let poster = TransportReceiptPoster(transport: transport, allowedHTTPHosts: configuration.allowedHTTPHosts)
        let timeout = configuration.receiptTimeout
        return Task {
            _ = try? await ReceiptDelivery(directory: directory, poster: poster).flushPendingReceipts(timeout: timeout)
            return skipped
        }
    }

    /// Writes the notification's log line (identifiers, codes and numbers only).
    static func log(_ result: PipelineResult, configuration: PipelineConfiguration) {
        let d = result.details
        let detail = ([d.decryption].compactMap { $0 }.filter { $0 != "decrypted" } + d.notes).joined(separator: ",")
        configuration.logger.log(
            NotificationLogLine(
                pushID: result.pushID, outcome: result.outcome, reason: result.reason, detail: detail.isEmpty ? nil : detail,
                attachments: result.content.attachments.count, mediaRequested: d.mediaRequested,
                bytes: result.content.attachments.reduce(0) { $0 + $1.bytes }, fetchMs: d.fetchMs, totalMs: result.elapsedMs,
                cacheHits: d.cacheHits, receipt: result.receipt.status.rawValue,
                receiptSkip: result.receipt.skipReason?.code.rawValue, vendor: result.vendor?.identifier
            ))
    }

    private static func milliseconds(_ d: Duration) -> Int {
        let (s, atto) = d.components
        return Int(s * 1000 + atto / 1_000_000_000_000_000)
    }
}
