import Foundation
@_spi(RichPushInternal) import RichPushCore

/// A one-line progress bar on standard error, redrawn at most every 0.1 s:
/// `[#####     ] 512/1000 (51%)`, or `512 done` when the total is not known (tokens on stdin).
final class ProgressBar: Sendable {
    private let total: Int?
    /// When the bar was last drawn, and at which count; held while drawing (one writer at a time).
    private let drawn = Locked<(at: Date, done: Int?)>((.distantPast, nil))

    /// Makes a bar.
    /// - Parameter total: the number of items, `nil` when unknown.
    init(total: Int?) { self.total = total.map { max($0, 1) } }

    func update(done: Int) {
        drawn.withLock { drawn in
            let now = Date()
            guard drawn.done != done, done == total || now.timeIntervalSince(drawn.at) >= 0.1 else { return }
            drawn = (now, done)
            guard let total else {
                FileHandle.standardError.write(Data("\r\(done) done".utf8))
                return
            }
            let width = 30
            let filled = min(width, done * width / total)
            let line =
                "\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
                + "] \(done)/\(total) (\(min(100, done * 100 / total))%)"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// Ends the line as it is.
    func finish() {
        FileHandle.standardError.write(Data("\n".utf8))
    }

    /// Draws the final state and ends the line.
    func finish(done: Int) {
        drawn.withLock { $0.at = .distantPast }
        update(done: done)
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
