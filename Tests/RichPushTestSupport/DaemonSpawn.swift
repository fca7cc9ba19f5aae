import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program that starts a daemon (`pg_ctl start`), to completion.
///
/// Foundation's `Process` learns that a child exited when a socket it hands down to the child
/// reaches EOF; a daemon the child leaves behind inherits that socket, so the exit of `pg_ctl`
/// would never be seen. Here the program is spawned with `posix_spawn`, every descriptor above
/// stderr closed in the child, output to a file,
/// and reaped with `waitpid` on a thread of its own (no thread of the cooperative pool waits).
enum DaemonSpawn {
    /// Runs `path` with `arguments`; returns its exit status and output (stdout and stderr
    /// together, in the `stdout` field). Killed after `timeout` seconds.
    static func run(_ path: String, _ arguments: [String], timeout: Double) async throws -> ChildProcess.Finished {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-spawn-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        // Under ChildProcess's spawn lock, so no Foundation spawn opens its socket pair meanwhile:
        // every descriptor above stderr open now is closed in the child.
        let rc: Int32 = ChildProcess.spawnLock.withLock {
            let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
            for fd in open where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
            return posix_spawn(&child, path, &actions, nil, argv, environ)
        }
        guard rc == 0 else { throw TestSupportError("cannot start \(path): \(String(cString: strerror(rc)))") }
        let pid = child
        let watchdog = Task {
            try await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
            kill(pid, SIGKILL)
        }
        let status: Int32 = await withCheckedContinuation { continuation in
            let thread = Thread {
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
                // WIFEXITED / WEXITSTATUS, WTERMSIG (macros that do not import into Swift).
                let signal = raw & 0x7f
                continuation.resume(returning: signal == 0 ? (raw >> 8) & 0xff : 128 + signal)
            }
            thread.name = "spawn-wait-\(pid)"
            thread.start()
        }
        watchdog.cancel()
        let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
        return (status, text, "")
    }
}
