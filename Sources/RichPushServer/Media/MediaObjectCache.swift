import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The media edge's files kept in this instance's memory, least recently used out first,
/// within a byte bound (`--media-cache-bytes`, default 64 MB): a file's name is its SHA-256, so
/// a cached copy never goes stale, and a device fetch that hits it costs no store read.
/// A flood of `GET /m/…` for the files of a campaign then costs memory copies, not database
/// round trips (PostgreSQL sent each file as hex through a pooled connection, and 1-token sends
/// waited behind the flood).
final class MediaObjectCache: Sendable {
    private struct Entry {
        var object: MediaObject
        var used: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var hits = 0
        var misses = 0
    }

    /// The bound, in bytes of file content.
    let maximumBytes: Int
    private let state = Locked(State())

    /// The default bound: 64 MB (about 200 copies of ≤ 300 KB, article 004).
    static let defaultBytes = 64 * 1024 * 1024

    /// Makes an empty cache.
    ///
    /// - Parameter maximumBytes: the bound (0: nothing is kept).
    init(maximumBytes: Int = MediaObjectCache.defaultBytes) {
        self.maximumBytes = maximumBytes
    }

    /// The cached file, marked as just used; `nil` on a miss.
    func object(_ sha256: String) -> MediaObject? {
        state.withLock { state in
            guard var entry = state.entries[sha256] else {
                state.misses += 1
                return nil
            }
            state.clock += 1
            entry.used = state.clock
            state.entries[sha256] = entry
            state.hits += 1
            return entry.object
        }
    }

    /// Keeps `object`, evicting the least recently used files past the bound (a file larger than
    /// the bound is not kept).
    func keep(_ object: MediaObject) {
        guard object.bytes.count <= maximumBytes else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.entries[object.sha256] { state.bytes -= old.object.bytes.count }
            state.entries[object.sha256] = Entry(object: object, used: state.clock)
            state.bytes += object.bytes.count
            while state.bytes > maximumBytes, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.object.bytes.count
            }
        }
    }

    /// Files and bytes held, hits and misses so far (for `/metrics`).
    var usage: (files: Int, bytes: Int, hits: Int, misses: Int) {
        state.withLock { ($0.entries.count, $0.bytes, $0.hits, $0.misses) }
    }
}
