import Foundation

/// Makes a callback-driven transfer safe to abandon: one resumption, and no receiver call after it.
///
/// The transport's callbacks pass through `forward`, which holds the gate's lock while the
/// receiver runs; `finish` takes the same lock, so once `fetch` has returned no callback is
/// running and none will start. Both transports use it, so an abandoned URLSession or libcurl
/// transfer can never write into a file the pipeline has already removed.
final class TransferGate: @unchecked Sendable {
    /// `NSLock`, not `Locked`: it is held while the receiver's callback runs (the gate's point),
    /// not only around its fields.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, any Error>?
    private var finished = false
    private var pendingResult: Result<Void, any Error>?
    /// Set when the receiver asked to stop; the transport then treats its abort error as success.
    private(set) var stoppedByReceiver = false
    private let receiver: any MediaResponseReceiver

    init(receiver: any MediaResponseReceiver) {
        self.receiver = receiver
    }

    /// Installs the continuation (or resumes it at once if the transfer already finished).
    func install(_ continuation: CheckedContinuation<Void, any Error>) {
        lock.lock()
        if let pendingResult {
            lock.unlock()
            continuation.resume(with: pendingResult)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    /// Whether the gate is closed (finished or abandoned).
    var isFinished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return finished
    }

    /// Calls the receiver's head callback unless finished; `false` means stop.
    func forward(head: MediaResponseHead) -> Bool {
        forward { $0.receive(head: head) }
    }

    /// Calls the receiver's body callback unless finished; `false` means stop.
    func forward(body: UnsafeRawBufferPointer) -> Bool {
        forward { $0.receive(body: body) }
    }

    /// Runs one receiver callback under the lock; when it says stop, the gate finishes with
    /// success at once, so `fetch` returns without waiting for the transport to wind down.
    private func forward(_ call: (any MediaResponseReceiver) -> Bool) -> Bool {
        lock.lock()
        guard !finished else {
            lock.unlock()
            return false
        }
        let go = call(receiver)
        var resume: CheckedContinuation<Void, any Error>?
        if !go {
            stoppedByReceiver = true
            finished = true
            resume = continuation
            continuation = nil
            if resume == nil { pendingResult = .success(()) }
        }
        lock.unlock()
        resume?.resume()
        return go
    }

    /// Closes the gate and resumes the waiting task once; later calls are ignored.
    func finish(_ result: Result<Void, any Error>) {
        lock.lock()
        guard !finished else {
            lock.unlock()
            return
        }
        finished = true
        let c = continuation
        continuation = nil
        if c == nil { pendingResult = result }
        lock.unlock()
        c?.resume(with: result)
    }
}
