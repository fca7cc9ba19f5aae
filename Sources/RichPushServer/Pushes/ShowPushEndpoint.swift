import Foundation
import RichPushCore

/// `GET /v1/pushes/{push_id}` (admin): one push's figures; `400 invalid_push_id`, `404
/// unknown_push`, `503` when the store failed.
struct ShowPushEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .admin }
    var noStore: Bool { true }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let pushID = request.pathParameter
        guard !pushID.isEmpty, pushID.utf8.count <= RichPushReceipt.Limits.identifierBytes else {
            throw HTTPResponseError(code: "invalid_push_id", message: "push_id must be 1…\(RichPushReceipt.Limits.identifierBytes) bytes")
        }
        guard let push = try await context.read({ try $0.push(pushID) }) else {
            throw HTTPResponseError(status: 404, code: "unknown_push", message: "no receipts or sends for push_id '\(IdentifierRule.displayable(pushID))'")
        }
        return .json(200, push)
    }
}
