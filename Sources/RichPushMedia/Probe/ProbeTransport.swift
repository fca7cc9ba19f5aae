import Foundation
@_spi(RichPushInternal) import RichPushCore
@_spi(RichPushInternal) import RichPushExtension

/// The probe's HTTP layer: the extension's own libcurl transport with the address policy on
/// every connection, plus what the probe reports (time to first byte, the last URL requested,
/// any refused address).
final class ProbeTransport: MediaTransport {
    private struct State {
        var refusal: String?
        var lastURL: URL?
        var headAt: ContinuousClock.Instant?
    }

    private let inner: any MediaTransport
    private let policy: MediaAddressPolicy
    private let state = Locked(State())

    /// - Parameters:
    ///   - policy: which addresses may be connected to.
    ///   - resolve: libcurl `CURLOPT_RESOLVE` entries (`HOST:PORT:ADDRESS`).
    ///   - caFile: trust roots instead of the system's (PEM), or `nil`.
    init(policy: MediaAddressPolicy, resolve: [String], caFile: String? = nil) {
        self.policy = policy
        let state = self.state
        #if canImport(CCurl)
        var rules = CurlMediaTransport.ConnectionRules(resolve: resolve) { host, address in
            guard let why = policy.refusal(host: host, address: address) else { return true }
            state.withLock { $0.refusal = $0.refusal ?? why }
            return false
        }
        rules.caFile = caFile
        inner = CurlMediaTransport(connectionRules: rules)
        #else
        // No open-socket hook in URLSession: literal addresses are checked before each request
        // (below); names are not pinned. The provider side runs on Linux, where libcurl is used.
        inner = URLSessionMediaTransport()
        #endif
    }

    /// The first address refused, with why.
    var refusal: String? { state.withLock { $0.refusal } }
    /// The last URL requested (the final URL after redirects).
    var lastURL: URL? { state.withLock { $0.lastURL } }
    /// When the last response's head arrived.
    var headAt: ContinuousClock.Instant? { state.withLock { $0.headAt } }

    func fetch(_ request: MediaRequest, receiver: any MediaResponseReceiver) async throws {
        state.withLock {
            $0.lastURL = request.url
            $0.headAt = nil
        }
        // A literal address in the URL (every hop's) is refused before anything is resolved.
        let host = request.url.host ?? ""
        if let why = policy.refusal(host: host, address: host), MediaAddressPolicy.nonPublicRange(host) != "not a numeric address" {
            state.withLock { $0.refusal = $0.refusal ?? why }
            throw MediaTransportError(.network, why)
        }
        try await inner.fetch(request, receiver: TimingReceiver(receiver, state: state))
    }

    func post(to url: URL, body: Data, contentType: String, timeout: Duration) async throws -> Int {
        throw MediaTransportError(.network, "the media probe only fetches")
    }

    /// Notes when the head arrives, then forwards everything.
    private final class TimingReceiver: MediaResponseReceiver, @unchecked Sendable {
        private let inner: any MediaResponseReceiver
        private let state: Locked<State>

        init(_ inner: any MediaResponseReceiver, state: Locked<State>) {
            self.inner = inner
            self.state = state
        }

        func receive(head: MediaResponseHead) -> Bool {
            state.withLock { $0.headAt = ContinuousClock.now }
            return inner.receive(head: head)
        }

        func receive(body bytes: UnsafeRawBufferPointer) -> Bool {
            inner.receive(body: bytes)
        }
    }
}
