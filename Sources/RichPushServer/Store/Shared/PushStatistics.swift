import Foundation

/// The figures for one push, as `GET /v1/pushes/{push_id}` returns them (JSON, snake_case).
public struct PushStatistics: Sendable, Equatable, Codable {
    /// Timing percentiles of the extension's work, in milliseconds.
    public struct Timing: Sendable, Equatable, Codable {
        /// Delivered receipts that reported `elapsed_ms`.
        public var count: Int
        /// Median `elapsed_ms` (nearest rank), `nil` without data.
        public var p50: Int?
        /// 95th percentile `elapsed_ms` (nearest rank), `nil` without data.
        public var p95: Int?

        /// Makes timing figures (ms).
        public init(count: Int, p50: Int?, p95: Int?) {
            self.count = count
            self.p50 = p50
            self.p95 = p95
        }

        enum CodingKeys: String, CodingKey { case count, p50, p95 }

        /// Encodes `nil` percentiles as JSON `null`.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(count, forKey: .count)
            try c.encode(p50, forKey: .p50)
            try c.encode(p95, forKey: .p95)
        }
    }

    /// The push.
    public var pushID: String
    /// Device tokens the provider sent to; `nil` until the provider side records sends.
    public var sent: Int?
    /// Tokens the provider accepted (APNs or FCM 200, or as recorded); `nil` until sends are recorded.
    public var accepted: Int?
    /// Tokens left out of sends because they were known inactive, bad or deleted; `nil` until
    /// sends are recorded.
    public var skipped: Int?
    /// Where `sent` and `accepted` come from, sorted: `apns`, `fcm` (sent by RichPush) and the
    /// sources named by `POST /v1/pushes/{push_id}/sends` (`onesignal`, `backend`, …); empty
    /// without sends.
    public var sources: [String] = []
    /// Distinct `delivered` receipts (duplicates by `receipt_id` counted once).
    public var delivered: Int
    /// Distinct `opened` receipts.
    public var opened: Int
    /// delivered / accepted, `nil` while no accepted count exists.
    public var displayRate: Double?
    /// Delivered receipts per `outcome` (those that named one).
    public var outcomes: [String: Int]
    /// Delivered receipts per `reason` (why media was not attached).
    public var reasons: [String: Int]
    /// Sum of `media_bytes` over delivered receipts, in bytes.
    public var mediaBytes: Int
    /// `elapsed_ms` percentiles over delivered receipts.
    public var elapsedMs: Timing
    /// The first receipt's arrival (ISO 8601, UTC), `nil` without receipts.
    public var firstSeen: String?
    /// The last receipt's arrival (ISO 8601, UTC).
    public var lastSeen: String?

    enum CodingKeys: String, CodingKey {
        case pushID = "push_id"
        case sent, accepted, skipped, sources, delivered, opened
        case displayRate = "display_rate"
        case outcomes, reasons
        case mediaBytes = "media_bytes"
        case elapsedMs = "elapsed_ms"
        case firstSeen = "first_seen"
        case lastSeen = "last_seen"
    }

    /// Makes the figures; `displayRate` is computed as delivered / accepted when accepted > 0.
    public init(
        pushID: String, sent: Int?, accepted: Int?, delivered: Int, opened: Int, outcomes: [String: Int],
        reasons: [String: Int], mediaBytes: Int, elapsedMs: Timing, firstSeen: String?, lastSeen: String?,
        skipped: Int? = nil, sources: [String] = []
    ) {
        self.pushID = pushID
        self.sent = sent
        self.accepted = accepted
        self.skipped = skipped ?? (sent == nil ? nil : 0)
        self.sources = sources
        self.delivered = delivered
        self.opened = opened
        if let accepted, accepted > 0 {
            self.displayRate = Double(delivered) / Double(accepted)
        } else {
            self.displayRate = nil
        }
        self.outcomes = outcomes
        self.reasons = reasons
        self.mediaBytes = mediaBytes
        self.elapsedMs = elapsedMs
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }

    /// Encodes explicitly so `nil` figures are written as JSON `null` (not omitted).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pushID, forKey: .pushID)
        try c.encode(sent, forKey: .sent)
        try c.encode(accepted, forKey: .accepted)
        try c.encode(skipped, forKey: .skipped)
        try c.encode(sources, forKey: .sources)
        try c.encode(delivered, forKey: .delivered)
        try c.encode(opened, forKey: .opened)
        try c.encode(displayRate, forKey: .displayRate)
        try c.encode(outcomes, forKey: .outcomes)
        try c.encode(reasons, forKey: .reasons)
        try c.encode(mediaBytes, forKey: .mediaBytes)
        try c.encode(elapsedMs, forKey: .elapsedMs)
        try c.encode(firstSeen, forKey: .firstSeen)
        try c.encode(lastSeen, forKey: .lastSeen)
    }

    /// Decodes the figures; `skipped` and `sources` may be absent (a server before issue 11).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pushID = try c.decode(String.self, forKey: .pushID)
        sent = try c.decodeIfPresent(Int.self, forKey: .sent)
        accepted = try c.decodeIfPresent(Int.self, forKey: .accepted)
        skipped = try c.decodeIfPresent(Int.self, forKey: .skipped)
        sources = try c.decodeIfPresent([String].self, forKey: .sources) ?? []
        delivered = try c.decode(Int.self, forKey: .delivered)
        opened = try c.decode(Int.self, forKey: .opened)
        displayRate = try c.decodeIfPresent(Double.self, forKey: .displayRate)
        outcomes = try c.decode([String: Int].self, forKey: .outcomes)
        reasons = try c.decode([String: Int].self, forKey: .reasons)
        mediaBytes = try c.decode(Int.self, forKey: .mediaBytes)
        elapsedMs = try c.decode(Timing.self, forKey: .elapsedMs)
        firstSeen = try c.decodeIfPresent(String.self, forKey: .firstSeen)
        lastSeen = try c.decodeIfPresent(String.self, forKey: .lastSeen)
    }

    /// Nearest-rank percentile of a distribution given as (value, count) pairs in ascending value order.
    ///
    /// - Parameters:
    ///   - distribution: distinct values, ascending, with how often each occurred.
    ///   - percent: 0…100.
    /// - Returns: the value, `nil` when empty.
    static func percentile(_ distribution: [(value: Int, count: Int)], _ percent: Double) -> Int? {
        let total = distribution.reduce(0) { $0 + $1.count }
        guard total > 0 else { return nil }
        let rank = max(1, Int((percent / 100 * Double(total)).rounded(.up)))
        var seen = 0
        for (value, count) in distribution {
            seen += count
            if seen >= rank { return value }
        }
        return distribution.last?.value
    }

    /// Nearest-rank percentile of sorted values.
    ///
    /// - Parameters:
    ///   - sorted: values in ascending order.
    ///   - percent: 0…100.
    /// - Returns: the value, `nil` when empty.
    static func percentile(_ sorted: [Int], _ percent: Double) -> Int? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }
}
