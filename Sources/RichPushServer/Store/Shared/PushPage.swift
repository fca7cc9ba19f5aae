import Foundation

/// One page of pushes with the cursors of its neighbours.
public struct PushPage: Sendable, Equatable {
    /// The pushes, newest first (or in push-id order for a prefix search).
    public var pushes: [PushStatistics]
    /// The next page (older, or further in push-id order), `nil` when this is the last.
    public var next: PushCursor?
    /// The previous page (newer, or earlier in push-id order), `nil` when this is the first.
    public var previous: PushCursor?

    /// Makes a page.
    public init(pushes: [PushStatistics], next: PushCursor?, previous: PushCursor?) {
        self.pushes = pushes
        self.next = next
        self.previous = previous
    }
}
