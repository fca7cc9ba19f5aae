import Foundation
import RichPushProvider

/// Device tokens from several sources, one after the other (`--token` values, then `--tokens FILE`).
final class ChainedTokenSource: DeviceTokenSource, @unchecked Sendable {
    private let sources: [any DeviceTokenSource]
    private let lock = NSLock()
    private var current = 0

    /// Makes a chain.
    /// - Parameter sources: the sources, in order.
    init(_ sources: [any DeviceTokenSource]) {
        self.sources = sources
    }

    /// Ends the stream: later calls return no tokens (the batch sends what it has taken, then
    /// stops), e.g. once the results can no longer be written.
    func stop() {
        lock.withLock { current = sources.count }
    }

    func nextTokens(maximumCount: Int) async throws -> [String] {
        while true {
            let index = lock.withLock { current }
            guard index < sources.count else { return [] }
            let tokens = try await sources[index].nextTokens(maximumCount: maximumCount)
            if !tokens.isEmpty { return tokens }
            lock.withLock { current = max(current, index + 1) }
        }
    }
}
