import Foundation

/// Who a campaign goes to, as `POST /v1/campaigns` named it; the store turns it into the
/// campaign's targets (its audience snapshot) in the transaction that creates the campaign.
public enum CampaignAudience: Sendable, Equatable {
    /// These device tokens (canonical, duplicates removed), each through the campaign's provider.
    case tokens([String])
    /// The devices registered (`POST /v1/devices`) for these user ids.
    case userIDs([String])
    /// Every registered device, or those of one platform (`ios`, `android`, …).
    case all(platform: String?)
    /// The registered devices holding at least one of these tags.
    case tagsAny([String])

    /// The audience's kind as the API names it: `tokens`, `user_ids`, `all`, `tags`.
    public var kind: String {
        switch self {
        case .tokens: "tokens"
        case .userIDs: "user_ids"
        case .all: "all"
        case .tagsAny: "tags"
        }
    }
}
