import Foundation

/// The body of `GET /v1/pushes`: `{"pushes":[…], "next": cursor|null, "previous": cursor|null}`,
/// newest first (push-id order with `prefix`); pass `next` as `after=` for the following page.
public struct PushList: Sendable, Equatable, Codable {
    /// One entry per push.
    public var pushes: [PushStatistics]
    /// The cursor of the next page (`?after=`), `nil` on the last page.
    public var next: String?
    /// The cursor of the previous page (`?before=`), `nil` on the first page.
    public var previous: String?

    /// Makes a list.
    public init(pushes: [PushStatistics], next: String? = nil, previous: String? = nil) {
        self.pushes = pushes
        self.next = next
        self.previous = previous
    }

    /// Makes the list of a store page.
    ///
    /// - Parameter page: the page.
    public init(_ page: PushPage) {
        self.init(pushes: page.pushes, next: page.next?.token, previous: page.previous?.token)
    }

    enum CodingKeys: String, CodingKey { case pushes, next, previous }

    /// Decodes a list; `next` and `previous` may be absent (servers before paging).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pushes = try c.decode([PushStatistics].self, forKey: .pushes)
        next = try c.decodeIfPresent(String.self, forKey: .next)
        previous = try c.decodeIfPresent(String.self, forKey: .previous)
    }

    /// Encodes the cursors as JSON `null` when absent.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pushes, forKey: .pushes)
        try c.encode(next, forKey: .next)
        try c.encode(previous, forKey: .previous)
    }
}
