import Foundation
import RichPushCore

/// `DELETE /v1/users/{user_id}` (admin): erases what names the user, in one transaction
/// (`RecipientStore.eraseUser`): their device registrations (and tags, token states), the
/// per-token send rows and campaign targets of their tokens, the conversions attributed to them,
/// the outbox rows about their tokens, stored answers that name them; their receipts stay counted
/// but name no device any more. `200 {user_id, erased: {devices, sends, receipts, conversions,
/// campaign_targets, webhook_events}}` (all zero for an unknown user: erasing twice is fine).
struct EraseUserEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .admin }
    var noStore: Bool { true }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let userID = try UserPushesEndpoint.userID(request)
        let store = try RecipientsEndpoint(context: context).recipientStore()
        let erased = try await context.write { _ in try store.eraseUser(userID) }
        // Device secrets cached for receipts go too (other instances' caches expire within minutes).
        context.recipients.forgetAll()
        let body: RichPushJSONValue = .object([
            "user_id": .string(userID),
            "erased": .object([
                "devices": .int(erased.devices), "sends": .int(erased.sends), "receipts": .int(erased.receipts), "conversions": .int(erased.conversions),
                "campaign_targets": .int(erased.campaignTargets), "webhook_events": .int(erased.webhookEvents),
            ]),
        ])
        return ServerResponse(status: 200, contentType: "application/json", body: body.jsonData(sortedKeys: true) + Data("\n".utf8))
    }
}
