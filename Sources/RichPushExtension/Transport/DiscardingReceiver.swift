/// A receiver that keeps only the status code and discards the body (receipt POSTs).
final class DiscardingReceiver: MediaResponseReceiver, @unchecked Sendable {
    private(set) var statusCode: Int?

    func receive(head: MediaResponseHead) -> Bool {
        statusCode = head.statusCode
        return true
    }

    func receive(body bytes: UnsafeRawBufferPointer) -> Bool { true }
}
