import RichPushTestSupport

/// A media server of the bridge tests' own (a second python process), so their stalled
/// connections never slow down the extension suites' shared server.
enum BridgeMediaServer {
    /// A `Task`, not a lazily initialised value: callers arriving while it starts await it
    /// instead of blocking their threads.
    private static let shared = Task { () -> Result<MediaServer, TestSupportError> in
        do { return .success(try await MediaServer.start()) } catch {
            return .failure(TestSupportError("bridge media server did not start: \(error)"))
        }
    }

    /// The server, started on first use.
    /// - Returns: the server.
    /// - Throws: why it did not start.
    static func get() async throws -> MediaServer { try await shared.value.get() }
}
