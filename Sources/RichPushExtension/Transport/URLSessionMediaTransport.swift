import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The media transport on iOS: a `URLSession` data task per request, streamed through its delegate.
///
/// It also builds on Linux (FoundationNetworking) and is tested there, but it is not the Linux
/// default: measured on this machine, FoundationNetworking ignored `timeoutIntervalForResource`,
/// kept reading after `cancel()` and buffered what the delegate did not keep up with. The
/// pipeline's own deadline and `TransferGate` bound what that can cost: `fetch` returns when the
/// receiver says stop, when the task is cancelled or when the deadline passes, and no byte reaches
/// the receiver (or a file) after that.
@_spi(RichPushInternal)
public struct URLSessionMediaTransport: MediaTransport {
    /// Makes a URLSession transport (one ephemeral session per request; no cache, no cookies).
    public init() {}

    public func fetch(_ request: MediaRequest, receiver: any MediaResponseReceiver) async throws {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = "GET"
        // Raw bytes: the size limits and the sniffing apply to the bytes received, not to a decoded
        // body. URLSession would decode a compressed answer anyway (a 1 MB gzip became 1.14 GB in
        // memory on Linux's URLSession), so `DownloadReceiver` refuses any Content-Encoding other
        // than identity at the head, before a decoded byte is read.
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        try await perform(urlRequest, timeout: request.timeout, receiver: receiver)
    }

    public func post(to url: URL, body: Data, contentType: String, timeout: Duration) async throws -> Int {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "POST"
        urlRequest.httpBody = body
        urlRequest.setValue(contentType, forHTTPHeaderField: "Content-Type")
        // The answer is discarded: nothing to gain from letting the server compress it.
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let sink = DiscardingReceiver()
        try await perform(urlRequest, timeout: timeout, receiver: sink)
        return sink.statusCode ?? 0
    }

    private func perform(_ urlRequest: URLRequest, timeout: Duration, receiver: any MediaResponseReceiver) async throws {
        let gate = TransferGate(receiver: receiver)
        let configuration = URLSessionConfiguration.ephemeral
        // Whole seconds rounded up: FoundationNetworking truncates to seconds, which would end a
        // 2.9 s budget at 2 s. The pipeline's own deadline still stops it on time.
        configuration.timeoutIntervalForRequest = timeout.seconds.rounded(.up)
        configuration.timeoutIntervalForResource = timeout.seconds.rounded(.up)
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        let delegate = SessionDelegate(gate: gate)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = TaskBox(session.dataTask(with: urlRequest))
        defer { session.invalidateAndCancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                gate.install(c)
                task.task.resume()
            }
        } onCancel: {
            gate.finish(.failure(MediaTransportError(.cancelled, "the request was cancelled")))
            task.task.cancel()
        }
    }
}

/// Carries a data task into the cancellation handler.
private final class TaskBox: @unchecked Sendable {
    let task: URLSessionDataTask
    init(_ task: URLSessionDataTask) { self.task = task }
}

/// Forwards URLSession's delegate calls through the gate; never follows redirects.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let gate: TransferGate

    init(gate: TransferGate) {
        self.gate = gate
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // The fetcher follows redirects itself (ATS check and hop limit on every hop).
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            gate.finish(.failure(MediaTransportError(.network, "not an HTTP response")))
            completionHandler(.cancel)
            return
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            headers[String(describing: key)] = String(describing: value)
        }
        let go = gate.forward(head: MediaResponseHead(statusCode: http.statusCode, headers: headers))
        completionHandler(go ? .allow : .cancel)
        if !go { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let go = data.withUnsafeBytes { gate.forward(body: $0) }
        if !go { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let error else {
            gate.finish(.success(()))
            return
        }
        let code = (error as? URLError)?.code
        if code == .timedOut {
            gate.finish(.failure(MediaTransportError(.timeout, error.localizedDescription)))
        } else if code == .cancelled {
            gate.finish(.failure(MediaTransportError(.cancelled, "the request was cancelled")))
        } else {
            gate.finish(.failure(MediaTransportError(.network, error.localizedDescription)))
        }
    }
}
