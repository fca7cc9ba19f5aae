import Foundation

#if canImport(os)
import os
#endif

/// Where notification log lines go: the unified log (`os_log`, subsystem `dev.richpush`,
/// category `extension`, visible in Console.app) on Apple platforms, standard error elsewhere; or
/// a custom sink (tests, an app's own logger).
public struct RichPushLogger: Sendable {
    private let sink: @Sendable (String) -> Void

    /// The platform's logger: `os_log` on Apple platforms, standard error elsewhere.
    public static let standard = RichPushLogger { line in
        #if canImport(os)
        Logger(subsystem: "dev.richpush", category: "extension").info("\(line, privacy: .public)")
        #else
        FileHandle.standardError.write(Data((line + "\n").utf8))
        #endif
    }

    /// A logger that drops every line.
    public static let disabled = RichPushLogger { _ in }

    /// Makes a logger with a custom sink.
    ///
    /// - Parameter sink: called once per line, from any thread.
    public init(sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    /// Writes one notification's line.
    ///
    /// - Parameter line: the line.
    @_spi(RichPushInternal)
    public func log(_ line: NotificationLogLine) {
        sink(line.rendered)
    }
}
