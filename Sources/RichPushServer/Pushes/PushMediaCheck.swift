import Foundation
import RichPushCore
import RichPushMedia
import RichPushProvider

/// The send-time media check of `POST /v1/pushes` (issue 19): before the first token is sent,
/// each distinct media URL of the payload (the extension's media keys, the request's
/// `media_key` first) is fetched once as the extension will fetch it (`MediaProbe`); with
/// `"media": "optimize"` (the default with the media edge) an original iOS would refuse or that
/// is heavy is replaced in the payload by the edge's push-optimised JPEG. A URL that still fails
/// is `422 media_refused` (nothing sent) unless `"on_media_error": "send_text"`, which removes
/// it and sends the rest. What was found and done per URL is recorded (`push_media`: the
/// original URL, the reason, the copy) and answered in `media`.
struct PushMediaCheck: Sendable {
    let context: ServerContext

    /// The mode a request runs in, checked before anything else happens.
    ///
    /// - Parameter push: the request.
    /// - Returns: the request's mode, or the server's default (`optimize` with the edge, else `check`).
    /// - Throws: `HTTPResponseError` 400 (field `media`) for `optimize` without the edge.
    func mode(for push: PushSendRequest) throws -> PushMediaOptions.Mode {
        let edge = context.configuration.mediaEdge
        let mode = push.mediaOptions.mode ?? (edge == nil ? .check : .optimize)
        if mode == .optimize, edge == nil {
            throw HTTPResponseError(
                field: "media",
                message:
                    "\"media\": \"optimize\" needs the media edge, which this server does not run: start richpush serve with --media-store-bytes BYTES and an https --public-url, or send \"media\": \"check\""
            )
        }
        return mode
    }

    /// Runs the check.
    ///
    /// - Parameters:
    ///   - push: the request (its mode already checked by `mode(for:)`).
    ///   - mode: the mode.
    /// - Returns: the request to send: its payload with the edge's URLs (or without the media
    ///   that failed, `send_text`), and `mediaReport` set.
    /// - Throws: `HTTPResponseError` 422 `media_refused` (nothing was sent: a URL failed, or the
    ///   payload with the edge's URLs no longer fits), 503 `store_error`.
    func run(_ push: PushSendRequest, mode: PushMediaOptions.Mode) async throws(HTTPResponseError) -> PushSendRequest {
        guard mode != .off, let root = try? RichPushJSONValue.parseStrictly(push.notification.payload) else { return push }
        let keys = push.mediaKeyPath.map { [$0] } ?? []
        let found = RichPushPayloadLookup.media(in: root, keyPaths: keys + RichPushPayloadKeyPath.defaultMediaKeyPaths.filter { !keys.contains($0) })
        guard let path = found.path else { return push }
        var seen = Set<String>()
        let urls = found.urls.filter { seen.insert($0).inserted }

        let settings = context.configuration.mediaCheck
        let workers = mode == .optimize ? context.mediaWorkers : nil
        let nowMs = ServerContext.nowMs
        var examinations = await withTaskGroup(of: (Int, MediaExamination).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask { (index, await MediaExamination.examine(url, settings: settings, workers: workers, nowMs: nowMs)) }
            }
            var done: [(Int, MediaExamination)] = []
            for await item in group { done.append(item) }
            return done.sorted { $0.0 < $1.0 }.map(\.1)
        }

        // The copies first: recorded (so never evicted) before they are stored.
        if let edge = context.configuration.mediaEdge {
            for index in examinations.indices {
                guard let object = examinations[index].optimized else { continue }
                let record = Self.record(examinations[index], pushID: push.pushID, action: "optimized", edge: edge, nowMs: nowMs)
                let stored = try await context.write { store in
                    try store.recordMedia(record)
                    return try store.storeMedia(object, budgetBytes: edge.storeBytes)
                }
                if case .full(let referenced) = stored {
                    examinations[index].optimized = nil
                    examinations[index].failure = (
                        "media_store_full",
                        "the media edge holds \(referenced) bytes of files recorded sends still name, so the optimised copy (\(object.bytes.count) bytes) does not fit --media-store-bytes \(edge.storeBytes); raise it"
                    )
                }
            }
        }

        let failed = examinations.filter { $0.failure != nil }
        if let first = failed.first, let failure = first.failure, !push.mediaOptions.sendsText {
            let records = examinations.map { Self.record($0, pushID: push.pushID, action: "refused", edge: nil, nowMs: nowMs) }
            let deliveries = refusedDeliveries(failed, pushID: push.pushID, nowMs: nowMs)
            try await context.write { store in try store.recordMedia(records, webhooks: deliveries) }
            throw HTTPResponseError(
                status: 422, code: "media_refused", field: push.mediaField,
                message:
                    "nothing was sent: the extension would not attach \(first.url) (\(failure.reason): \(failure.message)); \(Self.fix(for: failure.reason, edge: context.configuration.mediaEdge != nil)), or send with \"on_media_error\": \"send_text\" to send the push without it"
                    + (failed.count > 1 ? " (\(failed.count) of \(examinations.count) media URLs fail; see the push's page)" : ""))
        }

        // The payload: the edge's URLs for the copies, the failed URLs removed (send_text).
        var replacements: [String: String?] = [:]
        var records: [PushMediaRecord] = []
        for examination in examinations {
            if examination.failure != nil {
                replacements[examination.url] = .some(nil)
                records.append(Self.record(examination, pushID: push.pushID, action: "sent_text", edge: nil, nowMs: nowMs))
            } else if let object = examination.optimized, let edge = context.configuration.mediaEdge {
                replacements[examination.url] = edge.url(for: object)
            } else {
                records.append(Self.record(examination, pushID: push.pushID, action: "checked", edge: nil, nowMs: nowMs))
            }
        }
        var checked = push
        if !replacements.isEmpty {
            let payload = MediaPayloadRewrite.rewrite(root, at: path, replacements: replacements)
            checked.notification.payload = payload.jsonData(sortedKeys: true)
            // The original passed the lint; the edge's URLs (built from --public-url) can only
            // make it longer.
            var linter = RichPushPayloadLinter()
            linter.voip = checked.notification.pushType == .voip
            if checked.notification.payload.count > linter.sizeLimit {
                let records = examinations.map { Self.record($0, pushID: push.pushID, action: "refused", edge: nil, nowMs: nowMs) }
                try await context.write { store in for record in records { try store.recordMedia(record) } }
                throw HTTPResponseError(
                    status: 422, code: "media_refused", field: push.mediaField,
                    message:
                        "nothing was sent: with the media edge's URLs the payload is \(checked.notification.payload.count) bytes, over Apple's \(linter.sizeLimit); shorten the payload (or --public-url), or send with \"media\": \"check\""
                )
            }
        }
        let written = records
        let deliveries = refusedDeliveries(failed, pushID: push.pushID, nowMs: nowMs)
        try await context.write { store in try store.recordMedia(written, webhooks: deliveries) }
        checked.mediaReport = examinations.map { Self.report($0, edge: context.configuration.mediaEdge) }
        return checked
    }

    /// The `media.refused` deliveries for the URLs that failed (none without a subscribed
    /// endpoint), written with their `push_media` rows.
    private func refusedDeliveries(_ failed: [MediaExamination], pushID: String, nowMs: Int) -> [WebhookDelivery] {
        guard let webhooks = context.configuration.webhooks, webhooks.wants(.mediaRefused) else { return [] }
        return webhooks.deliveries(
            for: failed.compactMap { e in
                e.failure.map { WebhookEvent.mediaRefused(pushID: pushID, url: e.url, reason: $0.reason, message: $0.message, atMs: nowMs) }
            })
    }

    /// The `push_media` row for one URL.
    static func record(_ e: MediaExamination, pushID: String, action: String, edge: MediaEdgeSettings?, nowMs: Int) -> PushMediaRecord {
        let copy = edge == nil ? nil : e.optimized
        return PushMediaRecord(
            pushID: pushID, originalURL: e.url, reason: e.failure?.reason ?? e.probe.reason?.rawValue, action: action,
            originalType: e.probe.format?.uniformTypeIdentifier, originalBytes: e.probe.bytes, sha256: copy?.sha256,
            optimizedType: copy?.contentType, optimizedBytes: copy?.bytes.count, sentURL: copy.flatMap { edge?.url(for: $0) }, recordedAtMs: nowMs)
    }

    /// One URL in the answer's `media`: `url`, `action` (`checked`, `optimized`, `sent_text`),
    /// `reason` (the probe's; null when the extension would attach the original), `message`,
    /// `type`, `bytes`, and for a copy `sent_url`, `optimized_type`, `optimized_bytes`,
    /// `width`/`height`; `elapsed_ms` (the probe's and the optimiser's work) and `queue_ms` (the
    /// wait for a free media worker).
    static func report(_ e: MediaExamination, edge: MediaEdgeSettings?) -> RichPushJSONValue {
        func number(_ v: Int?) -> RichPushJSONValue { v.map(RichPushJSONValue.int) ?? .null }
        var o: [String: RichPushJSONValue] = [
            "url": .string(e.url),
            "action": .string(e.failure != nil ? "sent_text" : e.optimized != nil ? "optimized" : "checked"),
            "reason": (e.failure?.reason ?? e.probe.reason?.rawValue).map { RichPushJSONValue.string($0) } ?? .null,
            "message": .string(e.failure?.message ?? e.probe.message),
            "type": e.probe.format.map { RichPushJSONValue.string($0.uniformTypeIdentifier) } ?? .null,
            "bytes": number(e.probe.bytes),
            "elapsed_ms": .int(e.elapsedMs),
            "queue_ms": .int(e.queueMs),
        ]
        if let copy = e.optimized, let edge {
            o["sent_url"] = .string(edge.url(for: copy))
            o["optimized_type"] = .string(copy.contentType)
            o["optimized_bytes"] = .int(copy.bytes.count)
            o["width"] = number(e.optimizeResult?.outputSize?.width)
            o["height"] = number(e.optimizeResult?.outputSize?.height)
        }
        return .object(o)
    }

    /// What to do about a refused media URL, in the server's terms.
    ///
    /// - Parameters:
    ///   - reason: the probe's (or the optimiser's) reason.
    ///   - edge: whether the server runs the media edge.
    /// - Returns: the advice.
    static func fix(for reason: String, edge: Bool) -> String {
        switch RichPushReasonCode(rawValue: reason) {
        case .unsupportedFormat, .tooLarge:
            return edge
                ? "no push-ready copy could be made of it: send a JPEG, PNG or GIF of at most 300 KB"
                : "send a JPEG, PNG or GIF of at most 300 KB (richpush media optimize URL --output FILE makes one), or run the server with the media edge (--media-store-bytes) and \"media\": \"optimize\""
        case .timeout: return "serve a smaller file (a preview of at most 300 KB, article 004) from a faster host or CDN"
        case .httpStatus: return "fix the URL or the host: it must answer 200 with the file"
        case .insecureScheme: return "serve the media over https (iOS's App Transport Security refuses http://)"
        case .notMedia: return "link the media file itself, not a page about it"
        case .corruptMedia: return "encode the file again (JPEG or PNG): it is cut short or damaged, or its decoder crashed on it"
        case .mediaTimeout: return "send a simpler file (JPEG or PNG): converting it took longer than the media edge allows"
        case .redirectLimit: return "link the final URL (the extension follows at most 5 redirects)"
        case .network: return "check that the host resolves and answers https from the internet"
        case .badURL: return "write a full https URL with a host, percent-encoded"
        case .blockedAddress: return "use a public host (richpush serve --media-allow-host HOST opens a test or intranet host)"
        default: return "fix the media URL as said"
        }
    }
}
