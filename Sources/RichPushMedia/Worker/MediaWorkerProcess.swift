import CVips
import Foundation
import RichPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One media worker process, seen from the pool: started with `posix_spawn` (standard input,
/// output and error on pipes, every other descriptor of the server closed, a small environment
/// without the server's), given one request at a time, stopped with SIGKILL past its deadline.
///
/// Used by one conversion at a time (the pool hands it out), so its state needs no lock.
final class MediaWorkerProcess: @unchecked Sendable {
    /// How a request ended.
    enum Ending: Equatable {
        /// The worker answered.
        case reply(MediaWorkerMessage.Reply)
        /// The deadline passed; the worker was killed.
        case timedOut
        /// The worker ended without answering: its wait status and the end of what it wrote to
        /// standard error.
        case died(status: Int32, errors: String)
        /// The pipe carried something that is not a reply; the worker was killed.
        case broken(String)
    }

    /// The process id.
    let pid: pid_t
    /// Conversions it has answered.
    private(set) var answered = 0
    /// Whether it has ended (reaped).
    private(set) var ended = false

    private var requests: Int32
    private var replies: Int32
    private var errors: Int32
    private var buffer = Data()
    private var errorTail = Data()

    /// The most bytes of standard error kept (the end of it): 4 KB.
    static let errorTailBytes = 4096

    private init(pid: pid_t, requests: Int32, replies: Int32, errors: Int32) {
        self.pid = pid
        self.requests = requests
        self.replies = replies
        self.errors = errors
    }

    deinit {
        stop()
    }

    /// Starts a worker.
    ///
    /// - Parameters:
    ///   - executable: the program (the `richpush` binary).
    ///   - arguments: its arguments (`__media-worker` and the options).
    ///   - environment: its whole environment (`NAME=value`).
    /// - Returns: the running worker.
    /// - Throws: `MediaOptimizeError` `decoder` when it cannot be started.
    static func spawn(executable: String, arguments: [String], environment: [String]) throws(MediaOptimizeError) -> MediaWorkerProcess {
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        var error: [Int32] = [-1, -1]
        guard makePipe(&input) else { throw failure("pipe") }
        guard makePipe(&output) else {
            closeAll(input)
            throw failure("pipe")
        }
        guard makePipe(&error) else {
            closeAll(input + output)
            throw failure("pipe")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, error[1], 2)
        #if os(Linux)
        // Nothing else of the server's: no listening socket, no database connection.
        _ = richpush_spawn_close_from(&actions, 3)
        #endif
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var every = sigset_t()
        sigemptyset(&every)
        for signal in [SIGPIPE, SIGXCPU, SIGXFSZ, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&every, signal) }
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let argv = [executable] + arguments
        let status = withCStrings(argv) { argv in
            withCStrings(environment) { envp in
                posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            }
        }
        close(input[0])
        close(output[1])
        close(error[1])
        guard status == 0 else {
            closeAll([input[1], output[0], error[0]])
            throw MediaOptimizeError(.decoder, "the media worker \(executable) could not be started: \(String(cString: strerror(status)))")
        }
        return MediaWorkerProcess(pid: pid, requests: input[1], replies: output[0], errors: error[0])
    }

    /// Sends `request` and waits for the reply until `deadline`.
    ///
    /// - Parameters:
    ///   - request: the conversion.
    ///   - deadline: when to give up and kill the worker.
    /// - Returns: how it ended; after anything but `.reply` the worker has ended.
    func run(_ request: MediaWorkerMessage.Request, deadline: ContinuousClock.Instant) -> Ending {
        guard let payload = try? JSONEncoder().encode(request) else { return .broken("the request could not be encoded") }
        guard MediaWorkerMessage.writeAll(MediaWorkerMessage.frame(payload), to: requests) else {
            return died()
        }
        var descriptors = [pollfd(fd: replies, events: Int16(POLLIN), revents: 0), pollfd(fd: errors, events: Int16(POLLIN), revents: 0)]
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var errorsOpen = true
        while true {
            do throws(MediaOptimizeError) {
                if let frame = try MediaWorkerMessage.takeFrame(from: &buffer) {
                    guard let reply = try? JSONDecoder().decode(MediaWorkerMessage.Reply.self, from: frame) else {
                        terminate()
                        return .broken("the media worker answered something that is not a reply")
                    }
                    answered += 1
                    return .reply(reply)
                }
            } catch {
                terminate()
                return .broken(error.message)
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                terminate()
                return .timedOut
            }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            descriptors[1].fd = errorsOpen ? errors : -1
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if ready < 0, errno != EINTR { return died() }
            guard ready > 0 else { continue }
            if descriptors[1].revents != 0 {
                let n = read(errors, &chunk, chunk.count)
                if n > 0 {
                    errorTail.append(contentsOf: chunk[0..<n])
                    if errorTail.count > Self.errorTailBytes { errorTail = Data(errorTail.suffix(Self.errorTailBytes)) }
                } else if n == 0 {
                    errorsOpen = false
                }
            }
            if descriptors[0].revents != 0 {
                let n = read(replies, &chunk, chunk.count)
                if n > 0 {
                    buffer.append(contentsOf: chunk[0..<n])
                } else if n == 0 || errno != EINTR {
                    return died()
                }
            }
        }
    }

    /// Ends the worker: standard input closed (it exits at the end of its input), killed when it
    /// has not within 1 s; reaped.
    func stop() {
        guard !ended else { return }
        Self.closeAll([requests])
        requests = -1
        for _ in 0..<100 {
            if reap(blocking: false) != nil { break }
            usleep(10_000)
        }
        if !ended { terminate() }
        closeDescriptors()
    }

    /// SIGKILL, then reaped.
    private func terminate() {
        guard !ended else { return }
        _ = kill(pid, SIGKILL)
        _ = reap(blocking: true)
        closeDescriptors()
    }

    /// After the reply pipe closed: the worker's wait status (killed if it lingers) and what it
    /// last wrote to standard error.
    private func died() -> Ending {
        var status = reap(blocking: false)
        for _ in 0..<100 where status == nil {
            usleep(10_000)
            status = reap(blocking: false)
        }
        if status == nil {
            _ = kill(pid, SIGKILL)
            status = reap(blocking: true)
        }
        // What it wrote last, including what is still in the pipe.
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        _ = fcntl(errors, F_SETFL, O_NONBLOCK)
        while true {
            let n = read(errors, &chunk, chunk.count)
            guard n > 0 else { break }
            errorTail.append(contentsOf: chunk[0..<n])
        }
        closeDescriptors()
        return .died(status: status ?? 0, errors: String(decoding: errorTail.suffix(Self.errorTailBytes), as: UTF8.self))
    }

    /// `waitpid` once; the status when the worker has ended.
    private func reap(blocking: Bool) -> Int32? {
        guard !ended else { return nil }
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if r == pid {
                ended = true
                return status
            }
            if r < 0, errno == EINTR { continue }
            if r < 0 {
                ended = true
                return 0
            }
            return nil
        }
    }

    private func closeDescriptors() {
        Self.closeAll([requests, replies, errors])
        (requests, replies, errors) = (-1, -1, -1)
    }

    /// A pipe whose ends close on exec (the child gets its ends through dup2).
    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        #if os(Linux)
        return richpush_pipe_cloexec(&ends) == 0
        #else
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
        #endif
    }

    private static func closeAll(_ descriptors: [Int32]) {
        for d in descriptors where d >= 0 { close(d) }
    }

    private static func failure(_ call: String) -> MediaOptimizeError {
        MediaOptimizeError(.decoder, "the media worker could not be started: \(call): \(String(cString: strerror(errno)))")
    }

    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for p in pointers { free(p) } }
        return body(pointers)
    }

    /// The signal that ended a worker, from its wait status; `nil` when it exited.
    static func signal(in status: Int32) -> Int32? {
        let signal = status & 0x7F
        return signal != 0 && signal != 0x7F ? signal : nil
    }

    /// The exit status of a worker that exited, from its wait status.
    static func exitCode(in status: Int32) -> Int32 { (status >> 8) & 0xFF }
}
