import Foundation

/// A cumulative histogram in seconds with fixed bucket bounds (Prometheus style).
struct LatencyHistogram {
    /// Upper bounds in seconds (0.5 ms … 5 s).
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
    private var counts = [Int](repeating: 0, count: LatencyHistogram.bounds.count)
    private var total = 0
    private var sum = 0.0

    /// Records one observation in seconds.
    mutating func observe(_ seconds: Double) {
        if let index = Self.bounds.firstIndex(where: { seconds <= $0 }) { counts[index] += 1 }
        total += 1
        sum += seconds
    }

    /// `_bucket`, `_sum` and `_count` lines.
    func render(name: String, help: String) -> String {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        var cumulative = 0
        for (bound, count) in zip(Self.bounds, counts) {
            cumulative += count
            out += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "\(name)_bucket{le=\"+Inf\"} \(total)\n"
        out += "\(name)_sum \(sum)\n\(name)_count \(total)\n"
        return out
    }
}
