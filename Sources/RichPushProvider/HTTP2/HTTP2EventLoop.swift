#if canImport(CNGHTTP2) && os(Linux)
import CNGHTTP2
import Foundation
@_spi(RichPushInternal) import RichPushCore

/// A socket the event loop watches, told when it is ready. Loop thread only.
protocol HTTP2EventSource: AnyObject {
    /// The socket is readable, writable, or closed/in error (`EPOLLIN`, `EPOLLOUT`, `EPOLLERR`/`EPOLLHUP`).
    ///
    /// - Parameter events: the epoll event bits.
    func handle(events: UInt32)
}

/// The one event-loop thread that drives every HTTP/2 connection of the process (`HTTP2Client`):
/// an epoll set of their sockets, an eventfd to wake it, timers, and a queue of work handed over
/// from other threads.
///
/// Callers on any thread hand work over with `execute(_:)` (under one lock, one wakeup per
/// burst); everything else — sockets, TLS, nghttp2 sessions, streams, timers — belongs to the loop
/// thread alone. After each round of events and handed-over work, every connection that queued
/// frames writes them (`afterRound`): a burst of 500 requests goes out in a few `write` calls,
/// not 500.
///
/// `@unchecked Sendable`: `inbox`, `wakePending` and `started` are behind `lock`; every other
/// field is touched by the loop thread only.
final class HTTP2EventLoop: @unchecked Sendable {
    /// The process's loop, started on first use.
    static let shared = HTTP2EventLoop()

    private let lock = NSLock()
    private var inbox: [() -> Void] = []
    private var wakePending = false
    private var startFailure: String?
    private var started = false
    private var epollFD: Int32 = -1
    private var wakeFD: Int32 = -1

    // Loop thread only.
    private var sources: [UInt64: any HTTP2EventSource] = [:]
    private var nextSourceID: UInt64 = 1
    private var timers = HTTP2TimerHeap()
    private var roundEnd: [() -> Void] = []
    private var threadID: pthread_t?

    private init() {}

    /// Starts the thread on first use.
    ///
    /// - Throws: `RichPushError` `transport` when epoll or eventfd cannot be made (out of descriptors).
    private func startIfNeeded() throws {
        lock.lock()
        defer { lock.unlock() }
        if started { return }
        if let startFailure { throw RichPushError(code: .transport, message: startFailure) }
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        let wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard epoll >= 0, wake >= 0, richpush_epoll_ctl(epoll, EPOLL_CTL_ADD, wake, UInt32(EPOLLIN.rawValue), 0) == 0 else {
            let message = "the HTTP/2 event loop could not start (epoll/eventfd: \(String(cString: strerror(richpush_errno()))))"
            if epoll >= 0 { close(epoll) }
            if wake >= 0 { close(wake) }
            startFailure = message
            throw RichPushError(code: .transport, message: message)
        }
        epollFD = epoll
        wakeFD = wake
        started = true
        let thread = Thread { [self] in run() }
        thread.name = "richpush-http2"
        thread.start()
    }

    /// Hands `work` to the loop thread (it runs there, in order, soon).
    ///
    /// - Parameter work: what to run; it may touch the loop's objects.
    /// - Throws: `RichPushError` `transport` when the loop cannot start.
    func execute(_ work: @escaping @Sendable () -> Void) throws {
        try startIfNeeded()
        lock.lock()
        inbox.append(work)
        let wake = !wakePending
        wakePending = true
        lock.unlock()
        if wake {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// Whether the caller runs on the loop thread.
    var isOnLoop: Bool {
        guard let threadID else { return false }
        return pthread_equal(pthread_self(), threadID) != 0
    }

    // MARK: Loop thread API

    /// Watches `fd` for `events` on behalf of `source` (loop thread).
    ///
    /// - Returns: the registration id, for `modify` and `remove`; `nil` when epoll refused.
    func add(fd: Int32, events: UInt32, source: any HTTP2EventSource) -> UInt64? {
        let id = nextSourceID
        nextSourceID += 1
        guard richpush_epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, events, id) == 0 else { return nil }
        sources[id] = source
        return id
    }

    /// Changes the events watched for a registered socket (loop thread).
    func modify(fd: Int32, id: UInt64, events: UInt32) {
        _ = richpush_epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, events, id)
    }

    /// Stops watching a socket (loop thread); call before closing it.
    func remove(fd: Int32, id: UInt64) {
        _ = richpush_epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, 0, id)
        sources[id] = nil
    }

    /// Runs `action` on the loop thread `seconds` from now, unless cancelled first (loop thread).
    ///
    /// - Returns: the timer, to cancel.
    @discardableResult
    func schedule(after seconds: Double, _ action: @escaping () -> Void) -> HTTP2Timer {
        let timer = HTTP2Timer(due: HTTP2Clock.now + UInt64(max(0, seconds) * 1e9), action: action)
        timers.push(timer)
        return timer
    }

    /// Runs `action` once at the end of this round, after every event and handed-over work of the
    /// round (loop thread): connections write their queued frames there.
    func atRoundEnd(_ action: @escaping () -> Void) {
        roundEnd.append(action)
    }

    // MARK: The thread

    private func run() {
        threadID = pthread_self()
        let capacity = 64
        let datas = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        let events = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        while true {
            let timeout = timers.millisecondsUntilNext(now: HTTP2Clock.now)
            let count = richpush_epoll_wait(epollFD, datas, events, Int32(capacity), timeout)
            if count > 0 {
                for index in 0..<Int(count) {
                    let id = datas[index]
                    if id == 0 {
                        var value: UInt64 = 0
                        _ = read(wakeFD, &value, 8)
                        continue
                    }
                    // A source removed earlier in this round is gone: skip its stale event.
                    sources[id]?.handle(events: events[index])
                }
            }
            runInbox()
            // Taken out first: a timer's action may schedule timers.
            for timer in timers.popDue(now: HTTP2Clock.now) { timer.fire() }
            runInbox()
            while !roundEnd.isEmpty {
                let actions = roundEnd
                roundEnd.removeAll(keepingCapacity: true)
                for action in actions { action() }
            }
        }
    }

    private func runInbox() {
        lock.lock()
        let work = inbox
        inbox.removeAll(keepingCapacity: true)
        wakePending = false
        lock.unlock()
        for item in work { item() }
    }
}

/// The loop's monotonic clock, in nanoseconds.
enum HTTP2Clock {
    /// Now, in nanoseconds since an arbitrary start (monotonic).
    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }
}

/// A timer of the event loop; `cancel()` stops it from running (loop thread).
final class HTTP2Timer {
    let due: UInt64
    private(set) var action: (() -> Void)?

    init(due: UInt64, action: @escaping () -> Void) {
        self.due = due
        self.action = action
    }

    /// Stops the timer; it will not run.
    func cancel() { action = nil }

    /// Whether it was cancelled (or has run).
    var isCancelled: Bool { action == nil }

    /// Runs the action once.
    func fire() {
        let run = action
        action = nil
        run?()
    }
}

/// The loop's timers, soonest first (a binary heap on `due`).
struct HTTP2TimerHeap {
    private var items: [HTTP2Timer] = []

    mutating func push(_ timer: HTTP2Timer) {
        items.append(timer)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].due < items[parent].due else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popFirst() -> HTTP2Timer? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let first = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left].due < items[smallest].due { smallest = left }
            if right < items.count, items[right].due < items[smallest].due { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }

    /// The epoll timeout until the soonest live timer (-1: none).
    mutating func millisecondsUntilNext(now: UInt64) -> Int32 {
        while let first = items.first, first.isCancelled { _ = popFirst() }
        guard let first = items.first else { return -1 }
        if first.due <= now { return 0 }
        return Int32(min(60_000, (first.due - now + 999_999) / 1_000_000))
    }

    /// Takes out every timer that is due (and the cancelled ones at the top), soonest first.
    mutating func popDue(now: UInt64) -> [HTTP2Timer] {
        var due: [HTTP2Timer] = []
        while let first = items.first, first.due <= now || first.isCancelled {
            _ = popFirst()
            if !first.isCancelled { due.append(first) }
        }
        return due
    }
}
#endif
