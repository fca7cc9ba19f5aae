/// A small deterministic generator (SplitMix64), so a test's random workload is the same on every
/// run and a failure can be replayed from its seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The generator's state; the seed to start with.
    public var state: UInt64

    /// Starts at `state`.
    ///
    /// - Parameter state: the seed.
    public init(state: UInt64) {
        self.state = state
    }

    /// The next 64 random bits.
    ///
    /// - Returns: the value.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<n` (0 when `n` ≤ 1).
    ///
    /// - Parameter n: the bound.
    /// - Returns: the value.
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
}
