import Foundation

/// A one-line progress bar on standard error, redrawn at most every 0.1 s:
/// `[#####     ] 512/1000 (51%)`, or `512 done` when the total is not known (tokens on stdin).
final class ProgressBar: @unchecked Sendable {
    private let total: Int?
    private let lock = NSLock()
    private var lastDraw = Date.distantPast
    private var lastDrawn: Int?

    /// Makes a bar.
    /// - Parameter total: the number of items, `nil` when unknown.
    init(total: Int?) { self.total = total.map { max($0, 1) } }

    func update(done: Int) {
        lock.lock(); defer { lock.unlock() }
        let now = Date()
        guard lastDrawn != done, done == total || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        lastDrawn = done
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

    /// Ends the line as it is.
    func finish() {
        FileHandle.standardError.write(Data("\n".utf8))
    }

    /// Draws the final state and ends the line.
    func finish(done: Int) {
        lock.lock()
        lastDraw = .distantPast
        lock.unlock()
        update(done: done)
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
