import Foundation
import RichPushServer

/// Progress of `richpush migrate` on standard error: a redrawn bar per table on a terminal,
/// otherwise a plain line per table at most once a second and when the table is done.
///
/// `@unchecked Sendable`: the migration reports its progress from one task, one step after the
/// other, so `show` and `finish` never run at the same time.
final class MigrationProgressDisplay: @unchecked Sendable {
    private let terminal: Bool
    private var bar: ProgressBar?
    private var table = ""
    private var lastLine = Date.distantPast

    init(terminal: Bool) { self.terminal = terminal }

    /// Shows one step.
    func show(_ progress: SQLiteToPostgresMigration.Progress) {
        if progress.table != table {
            if terminal, bar != nil { bar?.finish() }
            table = progress.table
            bar = nil
            lastLine = .distantPast
            if progress.total == 0 {
                FileHandle.standardError.write(Data("\(table): nothing left to copy\n".utf8))
                return
            }
            if terminal { FileHandle.standardError.write(Data("\(table):\n".utf8)) }
        }
        guard progress.total > 0 else { return }
        if terminal {
            if bar == nil { bar = ProgressBar(total: progress.total) }
            bar?.update(done: progress.done)
            return
        }
        let now = Date()
        guard progress.done == progress.total || now.timeIntervalSince(lastLine) >= 1 else { return }
        lastLine = now
        let percent = progress.total == 0 ? 100 : progress.done * 100 / progress.total
        FileHandle.standardError.write(Data("\(table): \(progress.done)/\(progress.total) (\(percent) %)\n".utf8))
    }

    /// Ends the last bar's line.
    func finish() {
        if terminal, bar != nil { bar?.finish() }
    }
}
