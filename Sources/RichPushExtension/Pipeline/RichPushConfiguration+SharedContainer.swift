import Foundation

extension RichPushConfiguration {
    /// Where the extension-depth state lives inside a shared (App Group) container.
    public enum SharedContainerLayout {
        /// The media cache: `Library/Caches/RichPush-media` (the system may purge it; it is a cache).
        public static let mediaCache = "Library/Caches/RichPush-media"
        /// Receipt queue, install id, seen pushes, badge counter: `Library/Application Support/RichPush`.
        public static let state = "Library/Application Support/RichPush"
        /// The key file the app writes for encrypted payloads: `<state>/keys.json`
        /// (`{"KID": "<base64 of 32 bytes>"}`, see `FileKeyProvider`).
        public static let keyFile = "Library/Application Support/RichPush/keys.json"
    }

    /// Turns on the media cache, the receipt queue and badge counter, and (when the app has
    /// written one) the key file, all inside a container shared by the app and its extension.
    ///
    /// On iOS pass `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`; the bridge
    /// does when the Info.plist names an `AppGroupIdentifier`. Keys kept in the shared keychain
    /// instead are set with `keyProvider` (see `RichPushKeyProvider`).
    /// - Parameters:
    ///   - container: the shared container's root.
    ///   - mediaCacheBytes: the cache's bound in bytes (default 50 MB).
    /// - Returns: problems found (an unreadable key file), to log; the rest is configured anyway.
    @discardableResult
    public mutating func useSharedContainer(_ container: URL, mediaCacheBytes: Int = 50_000_000) -> [String] {
        mediaCache = MediaCache(directory: container.appendingPathComponent(SharedContainerLayout.mediaCache, isDirectory: true), maximumBytes: mediaCacheBytes)
        stateDirectory = container.appendingPathComponent(SharedContainerLayout.state, isDirectory: true)
        let keyFile = container.appendingPathComponent(SharedContainerLayout.keyFile)
        guard FileManager.default.fileExists(atPath: keyFile.path) else { return [] }
        do {
            keyProvider = try FileKeyProvider(contentsOf: keyFile)
            return []
        } catch {
            return ["RichPush key file: \((error as? RichPushError)?.message ?? String(describing: error))"]
        }
    }
}
