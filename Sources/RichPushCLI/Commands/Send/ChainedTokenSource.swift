import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushProvider

/// Device tokens from several sources, one after the other (`--token` values, then `--tokens FILE`).
final class ChainedTokenSource: DeviceTokenSource, Sendable {
    private let sources: [any DeviceTokenSource]
    /// The source being read.
    private let current = Locked(0)

    /// Makes a chain.
    /// - Parameter sources: the sources, in order.
    init(_ sources: [any DeviceTokenSource]) {
        self.sources = sources
    }

    /// Ends the stream: later calls return no tokens (the batch sends what it has taken, then
    /// stops), e.g. once the results can no longer be written.
    func stop() {
        current.withLock { [count = sources.count] in $0 = count }
    }

    func nextTokens(maximumCount: Int) async throws -> [String] {
        while true {
            let index = current.withLock { $0 }
            guard index < sources.count else { return [] }
            let tokens = try await sources[index].nextTokens(maximumCount: maximumCount)
            if !tokens.isEmpty { return tokens }
            current.withLock { $0 = max($0, index + 1) }
        }
    }
}
