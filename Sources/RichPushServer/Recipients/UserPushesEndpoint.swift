import Foundation
import RichPushCore

/// `GET /v1/users/{user_id}/pushes?limit=&before=` (admin): a user's history, newest first: each
/// push sent to one of the user's registered devices, with the provider's verdict and, when the
/// app reports per device, when the device showed and opened it.
struct UserPushesEndpoint: Endpoint {
    /// The largest `limit`: 500 pushes a page.
    static let maximumLimit = 500

    let context: ServerContext

    var access: EndpointAccess { .admin }
    var noStore: Bool { true }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let userID = try Self.userID(request)
        var limit = 50
        if let text = request.query["limit"] {
            guard text.utf8.count <= 4, let n = Int(text), (1...Self.maximumLimit).contains(n) else {
                throw HTTPResponseError(field: "limit", message: "limit must be an integer from 1 to \(Self.maximumLimit)")
            }
            limit = n
        }
        let before = request.query["before"]
        if let before, RecipientCursor.decode(before) == nil {
            throw HTTPResponseError(field: "before", message: "before must be next_before from the previous page")
        }
        let store = try RecipientsEndpoint(context: context).recipientStore()
        let pageSize = limit
        let page = try await context.read { _ in try store.userPushes(userID: userID, before: before, limit: pageSize) }
        func time(_ ms: Int?) -> RichPushJSONValue { ms.map { .string(SQLiteStore.iso8601($0)) } ?? .null }
        let rows: [RichPushJSONValue] = page.pushes.map { p in
            .object([
                "push_id": .string(p.pushID), "title": p.title.map(RichPushJSONValue.string) ?? .null,
                "device_id": p.deviceID.map(RichPushJSONValue.string) ?? .null,
                "sent_at": time(p.sentAtMs), "outcome": p.outcome.map(RichPushJSONValue.string) ?? .null, "delivered_at": time(p.deliveredAtMs),
                "opened_at": time(p.openedAtMs),
            ])
        }
        let body: RichPushJSONValue = .object([
            "user_id": .string(userID), "pushes": .array(rows), "next_before": page.next.map(RichPushJSONValue.string) ?? .null,
        ])
        return ServerResponse(status: 200, contentType: "application/json", body: body.jsonData(sortedKeys: true) + Data("\n".utf8))
    }

    /// The path's user id, checked as `POST /v1/devices` checks one.
    static func userID(_ request: ServerRequest) throws -> String {
        let id = request.pathParameter
        guard DeviceRegistrationRequest.isValidUserID(id) else {
            throw HTTPResponseError(
                code: "invalid_user_id", message: "the user id is 1…\(DeviceRegistrationRequest.maximumUserIDBytes) bytes without control characters")
        }
        return id
    }
}
