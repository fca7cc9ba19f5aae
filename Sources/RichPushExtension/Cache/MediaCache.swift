import Foundation

/// A cache of downloaded media files in a directory shared by extension processes (the App Group
/// container on iOS; `simulate --cache DIR` here), keyed by URL, bounded in bytes, evicting the
/// least recently used files first.
///
/// Layout: `<sha256(url)>.media` files, an `index.json` (`[MediaCacheEntry]`) and `cache.lock`.
/// The index is read and rewritten only while holding `flock` on the lock file, and replaced by
/// an atomic rename; a stored file is first copied to a private temporary name and renamed into
/// place under the lock, so another process never sees a partial file. A hit is *copied* into the
/// notification's own folder, because the system moves attachment files away: the cached path is
/// never handed over. Files the index does not list (left by a crash) are removed on the next store.
@_spi(RichPushInternal)
public struct MediaCache: Sendable {
    /// The default bound: 50 MB (10^6-byte MB), the size of one maximal video attachment.
    public static let defaultMaximumBytes = 50_000_000

    /// The cache directory.
    public let directory: URL
    /// The bound on the sum of the cached files' sizes, in bytes.
    public let maximumBytes: Int

    private var indexFile: URL { directory.appendingPathComponent("index.json") }
    private var lock: FileLock { FileLock(url: directory.appendingPathComponent("cache.lock")) }

    /// Makes a cache in a directory (created on first use).
    ///
    /// - Parameters:
    ///   - directory: the shared directory.
    ///   - maximumBytes: the size bound in bytes (default 50 MB).
    public init(directory: URL, maximumBytes: Int = MediaCache.defaultMaximumBytes) {
        self.directory = directory
        self.maximumBytes = max(0, maximumBytes)
    }

    /// The cache key of a URL: its SHA-256 in lowercase hex (64 characters).
    ///
    /// - Parameter url: the media URL after normalisation (the string that is fetched).
    /// - Returns: the key, also the file's base name.
    public static func key(for url: String) -> String {
        SHA256Hash.hex(url)
    }

    /// Copies a fresh cached file for `url` to `destination`, and marks it recently used.
    ///
    /// - Parameters:
    ///   - url: the media URL.
    ///   - destination: a new file path in the notification's own folder (must not exist).
    ///   - now: the current time.
    /// - Returns: the bytes copied, or `nil` on a miss (absent, expired or unreadable).
    /// - Throws: `RichPushError` `io` when the lock cannot be taken.
    public func retrieve(_ url: String, to destination: URL, now: Date = Date()) throws -> Int? {
        let key = Self.key(for: url)
        return try lock.withLock {
            var index = readIndex()
            guard let position = index.firstIndex(where: { $0.key == key }) else { return nil }
            let file = mediaFile(key)
            guard index[position].expires > now.timeIntervalSince1970 else {
                try? FileManager.default.removeItem(at: file)
                index.remove(at: position)
                try writeIndex(index)
                return nil
            }
            do {
                try FileManager.default.copyItem(at: file, to: destination)
            } catch {
                try? FileManager.default.removeItem(at: destination)
                if !FileManager.default.fileExists(atPath: file.path) {
                    index.remove(at: position)
                    try writeIndex(index)
                }
                return nil
            }
            index[position].lastUsed = now.timeIntervalSince1970
            try writeIndex(index)
            return index[position].bytes
        }
    }

    /// Stores a downloaded file for `url`, unless the response forbids it or it is larger than
    /// the whole cache; evicts least recently used files until the total fits `maximumBytes`.
    ///
    /// - Parameters:
    ///   - url: the media URL.
    ///   - file: the complete downloaded file (left in place; the cache keeps its own copy).
    ///   - cacheControl: the response's `Cache-Control` header, if any.
    ///   - now: the current time.
    /// - Returns: whether the file was stored.
    /// - Throws: `RichPushError` `io` when the directory, the lock or the index cannot be written.
    @discardableResult
    public func store(_ url: String, file: URL, cacheControl: String?, now: Date = Date()) throws -> Bool {
        guard let freshness = CacheControl(header: cacheControl).freshness else { return false }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
        guard let bytes, bytes <= maximumBytes else { return false }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let incoming = directory.appendingPathComponent(".incoming-\(UUID().uuidString)")
        do {
            try FileManager.default.copyItem(at: file, to: incoming)
        } catch {
            try? FileManager.default.removeItem(at: incoming)
            throw RichPushError(code: .io, message: "cannot copy media into the cache \(directory.path): \(error.localizedDescription)", underlying: error)
        }
        let key = Self.key(for: url)
        return try lock.withLock {
            guard rename(incoming.path, mediaFile(key).path) == 0 else {
                try? FileManager.default.removeItem(at: incoming)
                throw RichPushError(code: .io, message: "cannot rename into the cache \(directory.path): \(String(cString: strerror(errno)))")
            }
            var index = readIndex().filter { $0.key != key }
            index.append(MediaCacheEntry(key: key, bytes: bytes, lastUsed: now.timeIntervalSince1970, expires: now.timeIntervalSince1970 + freshness))
            index = evict(index, keeping: key, now: now)
            try writeIndex(index)
            removeOrphans(index, now: now)
            return true
        }
    }

    /// The entries, least recently used first.
    ///
    /// - Returns: the index as stored.
    /// - Throws: `RichPushError` `io` when the lock cannot be taken.
    public func entries() throws -> [MediaCacheEntry] {
        try lock.withLock { readIndex().sorted { $0.lastUsed < $1.lastUsed } }
    }

    // MARK: - Under the lock

    private func mediaFile(_ key: String) -> URL {
        directory.appendingPathComponent("\(key).media")
    }

    private func readIndex() -> [MediaCacheEntry] {
        guard let data = AtomicFile.read(indexFile),
            let index = try? JSONDecoder().decode([MediaCacheEntry].self, from: data)
        else { return [] }
        return index
    }

    private func writeIndex(_ index: [MediaCacheEntry]) throws {
        let data = try JSONEncoder().encode(index)
        try AtomicFile.write(data, to: indexFile)
    }

    /// Drops expired entries, then the least recently used ones (never `keeping`) until the total
    /// fits; removes their files.
    private func evict(_ index: [MediaCacheEntry], keeping: String, now: Date) -> [MediaCacheEntry] {
        var kept: [MediaCacheEntry] = []
        for entry in index {
            if entry.expires <= now.timeIntervalSince1970 && entry.key != keeping {
                try? FileManager.default.removeItem(at: mediaFile(entry.key))
            } else {
                kept.append(entry)
            }
        }
        kept.sort { $0.lastUsed < $1.lastUsed }
        var total = kept.reduce(0) { $0 + $1.bytes }
        var result: [MediaCacheEntry] = []
        for entry in kept {
            if total > maximumBytes && entry.key != keeping {
                total -= entry.bytes
                try? FileManager.default.removeItem(at: mediaFile(entry.key))
            } else {
                result.append(entry)
            }
        }
        return result
    }

    /// Removes `.media` files the index does not list, and temporary files older than 10 minutes
    /// (another process may still be copying a younger one).
    private func removeOrphans(_ index: [MediaCacheEntry], now: Date) {
        let listed = Set(index.map { "\($0.key).media" })
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names {
            let url = directory.appendingPathComponent(name)
            if name.hasSuffix(".media") && !listed.contains(name) {
                try? FileManager.default.removeItem(at: url)
            } else if name.hasPrefix(".incoming-") || name.hasPrefix(".tmp-") {
                let modified = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? nil
                if let modified, now.timeIntervalSince(modified) > 600 {
                    try? FileManager.default.removeItem(at: url)
                }
            }
        }
    }
}
