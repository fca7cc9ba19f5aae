import Foundation

/// A `DeviceTokenSource` over an array already in memory.
public final class ArrayTokenSource: DeviceTokenSource, @unchecked Sendable {
    private let tokens: [String]
    private let lock = NSLock()
    private var next = 0

    /// Makes a source.
    /// - Parameter tokens: the device tokens, in order.
    public init(_ tokens: [String]) {
        self.tokens = tokens
    }

    public func nextTokens(maximumCount: Int) async throws -> [String] {
        lock.withLock {
            let end = min(tokens.count, next + max(1, maximumCount))
            defer { next = end }
            return Array(tokens[next..<end])
        }
    }
}
