#if !canImport(UserNotifications)
import Foundation

#if os(Linux)
// swift-format-ignore: AlwaysUseLowerCamelCase
// Glibc's RUSAGE_SELF as the enum type getrusage(2) takes, named after it.
private let RUSAGE_SELF_WHO = __rusage_who_t(RUSAGE_SELF.rawValue)
#endif

/// The process's peak memory, measured as iOS's extension watchdog sees it: resident pages.
public enum ProcessMemory {
    /// About 24 MB: the memory an iOS Notification Service Extension gets before it is killed.
    ///
    /// - Important: observed in crash logs (`EXC_RESOURCE … limit=24 MB`), not documented by Apple.
    public static let extensionLimitBytes = 24 * 1024 * 1024

    /// The peak resident set size of this process so far, in bytes.
    ///
    /// Reads `VmHWM` from `/proc/self/status` (Linux), else `getrusage` `ru_maxrss` (kilobytes on
    /// Linux).
    /// - Returns: bytes, or `nil` when neither source is available.
    public static func peakResidentBytes() -> Int? {
        #if os(Linux)
        let who = RUSAGE_SELF_WHO
        #else
        let who = RUSAGE_SELF
        #endif
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        {
            let digits = line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces).split(separator: " ").first
            if let digits, let kilobytes = Int(digits) { return kilobytes * 1024 }
        }
        var usage = rusage()
        guard getrusage(who, &usage) == 0 else { return nil }
        return Int(usage.ru_maxrss) * 1024
    }
}
#endif
