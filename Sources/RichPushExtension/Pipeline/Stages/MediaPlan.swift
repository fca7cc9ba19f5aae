import Foundation

/// The media a payload names, as `MediaStage.prepare` read it: one path for one URL or many.
struct MediaPlan: Sendable, Equatable {
    /// One media URL as named.
    struct Item: Sendable, Equatable {
        /// The string the payload gave.
        var raw: String
        /// The normalised URL, or why it is not usable (`bad_url`).
        var url: Result<URL, FetchFailure>
    }

    /// Every URL named, in payload order (at most `RichPushPayloadLookup.maximumMediaCount`).
    var items: [Item] = []
    /// Values of `url` that were links, not media (not fetched).
    var deepLinks: [String] = []

    /// The items to fetch: index and URL.
    var fetchable: [(index: Int, url: URL)] {
        items.enumerated().compactMap { index, item in (try? item.url.get()).map { (index, $0) } }
    }
}
