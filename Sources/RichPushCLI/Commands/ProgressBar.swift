import Foundation

/// A one-line progress bar on standard error: `[#####     ] 512/1000 (51%)`, redrawn at most every 0.1 s.
final class ProgressBar: @unchecked Sendable {
    private let total: Int
    private let lock = NSLock()
    private var lastDraw = Date.distantPast

    init(total: Int) { self.total = max(total, 1) }

    func update(done: Int) {
        lock.lock(); defer { lock.unlock() }
        let now = Date()
        guard done == total || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let width = 30
        let filled = done * width / total
        let line = "\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] \(done)/\(total) (\(done * 100 / total)%)"
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
