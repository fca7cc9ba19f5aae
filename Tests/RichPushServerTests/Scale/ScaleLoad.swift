import Foundation

/// Load for the multi-instance tests: clients posting receipts spread over several
/// `richpush serve` instances, recording what each answer was.
final class ScaleLoad: @unchecked Sendable {
    /// One receipt to post.
    struct Post: Sendable, Hashable {
        let push: String
        let id: String
        var form: String { "push_id=\(push)&receipt_id=\(id)&outcome=media_attached&elapsed_ms=\(id.utf8.count * 10)" }
        var key: String { "\(push)/\(id)" }
    }

    private let lock = NSLock()
    private var acknowledged = Set<String>()
    private var statusCounts: [Int: Int] = [:]
    private var failures = 0
    private var stopFlag = false

    /// Keys (`push/id`) answered 202.
    var acked: Set<String> { lock.withLock { acknowledged } }
    /// Answers by HTTP status.
    var statuses: [Int: Int] { lock.withLock { statusCounts } }
    /// Requests that got no HTTP answer (connection refused or reset).
    var transportFailures: Int { lock.withLock { failures } }
    /// How many 202s so far.
    var ackCount: Int { lock.withLock { acknowledged.count } }
    /// Whether `stop()` was called.
    var stopped: Bool { lock.withLock { stopFlag } }

    /// Asks endless clients to stop after their current request.
    func stop() { lock.withLock { stopFlag = true } }

    func record(_ post: Post, status: Int?) {
        lock.withLock {
            guard let status else {
                failures += 1
                return
            }
            statusCounts[status, default: 0] += 1
            if status == 202 { acknowledged.insert(post.key) }
        }
    }

    /// `clients` clients post `postsPerClient` receipts each (`post(k, i)` is client k's i-th),
    /// the i-th to instance `(i + k) % ports.count`, one request in flight per client (each
    /// client keeps one connection per instance), until done or `stop()`.
    ///
    /// - Parameters:
    ///   - clients: how many clients.
    ///   - postsPerClient: posts per client.
    ///   - ports: the instances.
    ///   - skip: ports not to use any more (an instance that was killed).
    ///   - post: the receipt client k posts i-th.
    func run(
        clients: Int, postsPerClient: Int, ports: [Int], skip: @escaping @Sendable () -> Set<Int> = { [] },
        post: @escaping @Sendable (Int, Int) -> Post
    ) async {
        await withTaskGroup(of: Void.self) { group in
            for k in 0..<clients {
                group.addTask {
                    let connections = ports.map { HTTPTestClient(port: $0) }
                    for i in 0..<postsPerClient {
                        if self.stopped { return }
                        let receipt = post(k, i)
                        var index = (i + k) % ports.count
                        let dead = skip()
                        while dead.contains(ports[index]) && dead.count < ports.count { index = (index + 1) % ports.count }
                        let response = try? await connections[index].post("/v1/receipts", form: receipt.form)
                        self.record(receipt, status: response?.status)
                    }
                }
            }
        }
    }

    /// Waits (polling, without blocking a thread) until `condition` holds or `seconds` pass.
    ///
    /// - Returns: whether it held.
    static func wait(seconds: Double, until condition: () async -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let end = clock.now + .milliseconds(Int(seconds * 1000))
        while clock.now < end {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await condition()
    }
}
