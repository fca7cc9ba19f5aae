import Foundation

/// The body of `GET /v1/pushes`: `{"pushes":[…]}`, most recently seen first.
public struct PushList: Sendable, Equatable, Codable {
    /// One entry per push.
    public var pushes: [PushStatistics]

    /// Makes a list.
    public init(pushes: [PushStatistics]) {
        self.pushes = pushes
    }
}
