import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Stage 3: the payload's media, one path for one URL or many (issue 6: up to 10): each URL is
/// fetched (from the shared cache when it holds a fresh copy) into its own folder, its structure
/// checked (`RichPushMediaIntegrity`) and the validation hook run, all at once within the deadline; what
/// passed by the time the outcome is decided is attached in payload order.
///
/// One instance per run: it records each item as it ends, so a deadline keeps what arrived.
final class MediaStage: PipelineStage {
    /// How each item ended.
    private struct State {
        var ended: [Int: Result<RichPushDownloadedMedia, FetchFailure>] = [:]
        var fetchMs = 0
        var cacheHits = 0
    }

    private let configuration: RichPushConfiguration
    private let fetcher: MediaFetcher
    private let rules: ContentRules
    private let validate: (@Sendable (RichPushDownloadedMedia) async throws -> Void)?
    /// The run's folder: each item gets the sub-folder named by its index.
    let folder: URL
    private let state = Locked(State())

    /// Makes the stage for one run (no I/O).
    /// - Parameters:
    ///   - configuration: key paths, formats, ATS exceptions, cache, attachments folder.
    ///   - transport: the HTTP layer.
    ///   - rules: the content rules (media categories).
    ///   - validate: the caller's hook on each file before it counts as attached.
    init(
        configuration: RichPushConfiguration, transport: any MediaTransport, rules: ContentRules,
        validate: (@Sendable (RichPushDownloadedMedia) async throws -> Void)?
    ) {
        self.configuration = configuration
        self.rules = rules
        self.validate = validate
        fetcher = MediaFetcher(
            transport: transport, allowedHTTPHosts: configuration.allowedHTTPHosts, attachableFormats: configuration.attachableFormats,
            sendsURLCredentials: configuration.sendsMediaURLCredentials)
        folder = configuration.attachmentsDirectory.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: true)
    }

    func prepare(_ work: inout PipelineWork) {
        guard let json = work.json else { return }
        let found = RichPushPayloadLookup.media(in: json, keyPaths: configuration.mediaKeyPaths)
        work.media = MediaPlan(
            items: found.urls.map { raw in
                do {
                    return MediaPlan.Item(raw: raw, url: .success(try MediaURL.normalize(raw)))
                } catch {
                    return MediaPlan.Item(raw: raw, url: .failure(error as? FetchFailure ?? FetchFailure(.badURL, "bad media URL")))
                }
            }, deepLinks: found.deepLinks)
        work.best.details.mediaRequested = found.urls.count
    }

    func hasWork(_ work: PipelineWork) -> Bool {
        work.isReadable && !work.media.fetchable.isEmpty
    }

    func run(_ work: PipelineWork, until deadline: ContinuousClock.Instant) async {
        guard hasWork(work) else { return }
        await withTaskGroup(of: Void.self) { group in
            for (index, url) in work.media.fetchable {
                group.addTask { [self] in
                    let ended = await fetch(url, into: folder.appendingPathComponent(String(index), isDirectory: true), deadline: deadline)
                    state.withLock { $0.ended[index] = ended }
                }
            }
        }
    }

    /// Fetches, checks and validates one item; on failure nothing of it stays on disk.
    private func fetch(_ url: URL, into folder: URL, deadline: ContinuousClock.Instant) async -> Result<RichPushDownloadedMedia, FetchFailure> {
        let media: RichPushDownloadedMedia
        do {
            media = try await fetchCached(url, into: folder, deadline: deadline)
        } catch {
            return .failure(error)
        }
        do {
            try RichPushMediaIntegrity.verify(media)
            try await validate?(media)
            return .success(media)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            let validation = error as? RichPushMediaValidationError
            return .failure(
                FetchFailure(
                    validation?.reason ?? .unsupportedFormat, "the attachment was refused: \(validation?.message ?? String(describing: error))",
                    httpStatus: media.httpStatus))
        }
    }

    /// Fetches one URL, from the cache when it holds a fresh copy (no network request), and
    /// stores what the network brought when `Cache-Control` allows.
    private func fetchCached(_ url: URL, into folder: URL, deadline: ContinuousClock.Instant) async throws(FetchFailure) -> RichPushDownloadedMedia {
        let started = ContinuousClock.now
        defer {
            let ms = PipelineRun.milliseconds(ContinuousClock.now - started)
            state.withLock { $0.fetchMs = max($0.fetchMs, ms) }
        }
        if let cache = configuration.mediaCache, let media = cachedCopy(url, cache: cache, folder: folder) {
            state.withLock { $0.cacheHits += 1 }
            return media
        }
        let media = try await fetcher.fetch(url, into: folder, deadline: deadline)
        if let cache = configuration.mediaCache {
            _ = try? cache.store(url.absoluteString, file: media.file, cacheControl: media.cacheControl)
        }
        return media
    }

    private func cachedCopy(_ url: URL, cache: MediaCache, folder: URL) -> RichPushDownloadedMedia? {
        let temporary = folder.appendingPathComponent(".cached-\(UUID().uuidString.lowercased())")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            guard let bytes = try cache.retrieve(url.absoluteString, to: temporary), bytes > 0 else { return nil }
            let handle = try FileHandle(forReadingFrom: temporary)
            let prefix = try handle.read(upToCount: RichPushMediaFormat.sniffLength) ?? Data()
            try handle.close()
            guard let format = RichPushMediaFormat.sniff(prefix), let kind = format.kind, configuration.attachableFormats.contains(format),
                bytes <= kind.maximumBytes
            else {
                try? FileManager.default.removeItem(at: temporary)
                return nil
            }
            let file = folder.appendingPathComponent("\(kind.rawValue)-\(UUID().uuidString.lowercased()).\(format.fileExtension)")
            try FileManager.default.moveItem(at: temporary, to: file)
            return RichPushDownloadedMedia(file: file, folder: folder, format: format, bytes: bytes, url: url, httpStatus: 200, redirects: 0)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            return nil
        }
    }

    func conclude(_ result: inout RichPushResult, work: PipelineWork, stop: PipelineStop) {
        guard work.isReadable else { return }
        let plan = work.media
        guard !plan.items.isEmpty else {
            result.reason = .noMedia
            result.message =
                "the payload names no media (looked at \(configuration.mediaKeyPaths.map(\.description).joined(separator: ", ")))"
                + (plan.deepLinks.isEmpty ? "" : "; url \(plan.deepLinks.joined(separator: ", ")) is a link, not media (not fetched)")
            return
        }
        let ended = state.withLock { $0.ended }
        var outcomes: [Result<RichPushDownloadedMedia, FetchFailure>] = []
        for (index, item) in plan.items.enumerated() {
            switch item.url {
            case .failure(let failure):
                outcomes.append(.failure(plan.items.count == 1 ? failure : FetchFailure(.badURL, "media \(index + 1) is not a usable URL")))
            case .success:
                outcomes.append(ended[index] ?? .failure(FetchFailure(.timeout, Self.timeoutMessage(stop, count: plan.items.count))))
            }
        }
        if plan.items.count == 1, case .success(let url) = plan.items[0].url { result.mediaURL = url }

        var attachments: [RichPushNotificationContent.Attachment] = []
        var firstFailure: FetchFailure?
        var firstMedia: RichPushDownloadedMedia?
        for outcome in outcomes {
            switch outcome {
            case .success(let media):
                let attached = rules.attaching(media, to: result.content)
                result.content.categoryIdentifier = attached.categoryIdentifier
                for var attachment in attached.attachments {
                    let taken = attachments.filter { $0.identifier.hasPrefix(attachment.identifier) }.count
                    if taken > 0 { attachment.identifier += "-\(taken + 1)" }
                    attachments.append(attachment)
                }
                firstMedia = firstMedia ?? media
            case .failure(let failure):
                firstFailure = firstFailure ?? failure
            }
        }
        result.content.attachments = attachments
        if let firstMedia {
            result.outcome = .mediaAttached
            result.reason = nil
            result.httpStatus = firstMedia.httpStatus
            result.message =
                outcomes.count == 1
                ? "attached \(firstMedia.format.name), \(firstMedia.bytes) bytes" : "attached \(attachments.count) of \(outcomes.count) media"
        } else {
            let failure = firstFailure ?? FetchFailure(.noMedia, "")
            result.reason = failure.reason
            result.httpStatus = failure.httpStatus
            result.message = outcomes.count == 1 ? failure.message : "none of \(outcomes.count) media attached: \(failure.message)"
        }
    }

    static func timeoutMessage(_ stop: PipelineStop, count: Int) -> String {
        let what = count == 1 ? "the media arrived" : "this media arrived"
        switch stop {
        case .deadline(let seconds): return "the pipeline's deadline (\(seconds) s) passed before \(what)"
        case .expired: return "the host's time ran out before \(what)"
        case .completed: return "the deadline passed before \(what)"
        }
    }

    func finish(_ result: inout RichPushResult, work: PipelineWork) {
        let metrics = state.withLock { ($0.fetchMs, $0.cacheHits) }
        result.details.mediaAttached = result.content.attachments.count
        result.details.fetchMs = metrics.0
        result.details.cacheHits = metrics.1
        if metrics.1 > 0 && work.media.items.count == 1 { result.httpStatus = nil }
    }

    /// Removes what the run fetched that the delivered result does not show (an item that ended
    /// after the outcome was decided); the delivered files stay for the host to take.
    /// - Parameter delivered: the decided result.
    func removeUnshown(keeping delivered: RichPushResult) {
        let shown = Set(delivered.content.attachments.map { URL(fileURLWithPath: $0.file).deletingLastPathComponent().standardizedFileURL.path })
        guard let entries = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) else { return }
        for entry in entries where !shown.contains(entry.standardizedFileURL.path) {
            try? FileManager.default.removeItem(at: entry)
        }
        if shown.isEmpty { try? FileManager.default.removeItem(at: folder) }
    }
}
