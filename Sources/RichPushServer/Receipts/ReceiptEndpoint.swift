import Foundation
import RichPushCore

/// `POST /v1/receipts` (open): a form or JSON receipt → `202` once the COMMIT holding it is
/// durable (group commit, `ReceiptWriter`), `400` naming the field, `415` for another body type,
/// `413` over the bound (8 KB by default), `429 over_budget` with `Retry-After` for a new push id
/// from an address past its budget (`CreationBudget`; known push ids always pass), `503` when the
/// store failed or the server is stopping. A receipt that names its device (`device_id`,
/// `device_mac`: per-device receipts) is stored with the device when its HMAC verifies
/// (`ReceiptDeviceVerifier`), anonymously otherwise.
struct ReceiptEndpoint: Endpoint {
    let context: ServerContext
    let writer: ReceiptWriter
    /// Writes a store failure to stderr at most once a second.
    let log: StoreErrorLog

    var access: EndpointAccess { .open }
    var maximumBody: Int { context.configuration.maximumBody }
    var tooLarge: HTTPResponseError {
        HTTPResponseError(status: 413, code: "too_large", message: "a receipt body is at most \(maximumBody) bytes")
    }

    func countRefusal(_ reason: String) { context.metrics.receiptRejected(reason) }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let metrics = context.metrics
        if request.bodyTooLarge {
            metrics.receiptRejected("too_large")
            throw tooLarge
        }
        let receipt: RichPushReceipt
        do {
            receipt = try ReceiptDecoder.decode(body: request.body, contentType: request.header("Content-Type"))
        } catch let error as HTTPResponseError {
            metrics.receiptRejected("bad_request")
            throw error
        } catch {
            metrics.receiptRejected("bad_request")
            throw HTTPResponseError(status: 400, code: "invalid_body", message: "the receipt could not be read")
        }
        let budget = context.creationBudget
        let client = context.client(request).address
        if let retry = budget.retryAfter(client) {
            // Past its budget the address may still report pushes the store knows.
            let pushID = receipt.pushID
            guard try await context.read({ try $0.pushExists(pushID) }) else {
                metrics.receiptRejected("over_budget")
                budget.refused()
                throw CreationBudget.overBudget(retryAfter: retry, creating: "a receipt for a new push id")
            }
        }
        // A per-device receipt names its device only when its HMAC verifies with the device's secret.
        var deviceID: String?
        switch await context.recipients.check(receipt, context: context) {
        case .verified(let id): deviceID = id
        case .unverified: metrics.receiptUnverifiedDevice()
        case .anonymous: break
        }
        var anonymous = receipt
        (anonymous.deviceID, anonymous.deviceMAC) = (nil, nil)
        let stored = StoredReceipt(receipt: anonymous, userAgent: request.header("User-Agent"), receivedAtMs: ServerContext.nowMs, deviceID: deviceID)
        let result: ReceiptWriter.WriteResult
        do {
            let answer = try await writer.submitReportingPush(stored)
            result = answer.result
            if answer.createdPush { budget.charge(client) }
        } catch {
            metrics.receiptRejected("store_error")
            throw HTTPResponseError(status: 503, code: "shutting_down", message: "the server is shutting down; retry later", headers: [("Retry-After", "1")])
        }
        switch result {
        case .stored:
            metrics.receiptAccepted()
        case .duplicate:
            metrics.receiptDuplicate()
        case .failed(let message):
            // The detail (which names the database file) goes to the operator's log, not to
            // anonymous clients.
            metrics.receiptRejected("store_error")
            log.write(message)
            throw HTTPResponseError(status: 503, code: "store_error", message: "the receipt was not stored; retry later", headers: [("Retry-After", "1")])
        }
        return Self.accepted
    }

    private static let accepted = ServerResponse.empty(202)
}
