import RichPushTestSupport

/// A media server of the bridge tests' own (a second python process), so their stalled
/// connections never slow down the extension suites' shared server.
enum BridgeMediaServer {
    private static let shared: Result<MediaServer, TestSupportError> = {
        do { return .success(try MediaServer()) } catch {
            return .failure(TestSupportError("bridge media server did not start: \(error)"))
        }
    }()

    /// The server, started on first use.
    /// - Returns: the server.
    /// - Throws: why it did not start.
    static func get() throws -> MediaServer { try shared.get() }
}
