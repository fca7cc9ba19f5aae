import Foundation
@_spi(RichPushInternal) import RichPushCore

/// A `DeviceTokenSource` over an array already in memory.
public final class ArrayTokenSource: DeviceTokenSource, Sendable {
    private let tokens: [String]
    /// The position of the next token to hand out.
    private let next = Locked(0)

    /// Makes a source.
    /// - Parameter tokens: the device tokens, in order.
    public init(_ tokens: [String]) {
        self.tokens = tokens
    }

    public func nextTokens(maximumCount: Int) async throws -> [String] {
        next.withLock { next in
            let end = min(tokens.count, next + max(1, maximumCount))
            defer { next = end }
            return Array(tokens[next..<end])
        }
    }
}
