import Foundation
import RichPushCore

/// `DELETE /v1/devices/{token}` (open: whoever holds the token, which only the device and the
/// provider know): `200 {token, deleted}`; the token is skipped by later sends until it registers
/// again. `400` for something that is not a token, `503` when the store failed.
struct UnregisterDeviceEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .open }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        guard let normalized = DeviceTokenRule.canonical(request.pathParameter, provider: nil) else {
            throw HTTPResponseError(code: "invalid_token", message: "DELETE /v1/devices/{token}: the token is \(DeviceTokenRule.summary)")
        }
        let existed = try await context.write { try $0.unregisterDevice(normalized, atMs: ServerContext.nowMs) }
        // Its credential is gone: receipts naming it no longer verify.
        if existed { context.recipients.forgetAll() }
        let body: RichPushJSONValue = .object(["token": .string(normalized), "deleted": .bool(existed)])
        return ServerResponse(status: 200, contentType: "application/json", body: body.jsonData() + Data("\n".utf8))
    }
}
