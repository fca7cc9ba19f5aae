import Foundation

/// One variant of a campaign (`variants` of `POST /v1/campaigns`): its own content and push id,
/// so each has its own funnel sent → accepted → displayed → opened (→ converted).
public struct CampaignVariant: Sendable, Equatable {
    /// `A` … `E`, in the request's order.
    public var name: String
    /// The push id its payload carries (default: the campaign's push id + `.` + the name in lower case).
    public var pushID: String
    /// The alert title, for lists.
    public var title: String?
    /// The payload bytes every target of this variant gets (UTF-8 JSON).
    public var payload: String
    /// Its share of the split, percent (the variants' weights add up to 100).
    public var weight: Int
    /// What the send-time media check found and did for its media (JSON array), `nil` without media.
    public var mediaReport: String?

    /// Makes a variant.
    ///
    /// - Parameters:
    ///   - name: `A` … `E`.
    ///   - pushID: its push id.
    ///   - title: the alert title.
    ///   - payload: the payload (UTF-8 JSON).
    ///   - weight: its share of the split, percent.
    ///   - mediaReport: the media check's report (JSON array), if any.
    public init(name: String, pushID: String, title: String?, payload: String, weight: Int, mediaReport: String? = nil) {
        self.name = name
        self.pushID = pushID
        self.title = title
        self.payload = payload
        self.weight = weight
        self.mediaReport = mediaReport
    }

    /// The columns every read selects (after `campaign_id`), in `init(text:int:)`'s order.
    static let columns = "variant, push_id, title, payload, weight, media_report"

    /// Reads a row of `columns`.
    init(text: (Int) -> String?, int: (Int) -> Int?) {
        self.init(name: text(0) ?? "", pushID: text(1) ?? "", title: text(2), payload: text(3) ?? "{}", weight: int(4) ?? 0, mediaReport: text(5))
    }
}
