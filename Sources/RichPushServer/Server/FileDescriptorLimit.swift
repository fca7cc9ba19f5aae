import Foundation

/// The process's open-file limit (`RLIMIT_NOFILE`), which bounds how many connections the server
/// can hold: each is one descriptor.
public enum FileDescriptorLimit {
    /// Raises the soft limit to the hard limit (as nginx's `worker_rlimit_nofile` does; no
    /// privilege needed) and returns the limit now in force.
    ///
    /// - Returns: the soft limit after raising (the number of descriptors this process may open).
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }
}
