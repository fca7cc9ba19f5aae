import RichPushTestSupport

/// A media server of the bridge tests' own (a second python process), so their stalled
/// connections never slow down the extension suites' shared server.
enum BridgeMediaServer {
    /// The server, started on first use.
    /// - Returns: the server.
    /// - Throws: why it did not start.
    static func get() async throws -> MediaServer { try await MediaServer.get("bridge") }
}
