import Foundation
import RichPushCore
import RichPushProvider

/// `POST /v1/devices`: the app registers its device token. `201` (new) or `200` (registered
/// again) with the registration and the device's credential (`device_id`, `device_secret`: what
/// a per-device receipt names and signs with, kept while the token stays registered; the app
/// saves it in its App Group, `RichPushReceiptDeviceReference`), `400` naming the field, `403 user_not_verified`, `413`, `415`,
/// `429 over_budget` for a new token from an address past its budget (`CreationBudget`; only
/// anonymous registrations count), `503`.
///
/// Who may call: apps, so it is open (no admin token: it must never ship inside an app) and
/// every field is checked as hostile input (`DeviceRegistrationRequest`). What an open endpoint
/// must not allow is tying someone else's pushes to an attacker's device, so binding a token to
/// a `user_id` (which `POST /v1/pushes` `"user_ids"` then reach) needs proof: the admin token as
/// `Authorization: Bearer` (only that header, never the dashboard cookie: no cross-site request
/// can do it), which the app's backend uses when it registers on the user's behalf, or a
/// `user_hash` = hex HMAC-SHA256(device secret, user_id) that the backend computes at login and
/// hands to the app (`richpush serve --device-secret`).
struct RegisterDeviceEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .openOrBearer }
    var maximumBody: Int { context.configuration.maximumBody }
    var tooLarge: HTTPResponseError {
        HTTPResponseError(status: 413, code: "too_large", message: "a device registration is at most \(maximumBody) bytes")
    }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        if request.bodyTooLarge { throw tooLarge }
        let registration: DeviceRegistrationRequest
        do {
            registration = try DeviceRegistrationRequest(body: request.body, contentType: request.header("Content-Type"))
        } catch let error as HTTPResponseError {
            throw error
        } catch {
            throw HTTPResponseError(code: "invalid_request", message: String(describing: error))
        }
        let bearer = context.auth.isAuthorized(authorization: request.header("Authorization"), cookie: nil)
        if let userID = registration.userID, !bearer {
            guard let secret = context.configuration.deviceSecret else {
                throw HTTPResponseError(
                    status: 403, code: "user_not_verified",
                    message:
                        "binding a token to a user_id needs proof: the admin token as Authorization: Bearer (from your backend), or a user_hash, checked with the server's device secret (the server's setting: richpush serve --device-secret)"
                )
            }
            guard let hash = registration.userHash, let mac = Self.bytes(hex: hash), HMACSHA256.verify(mac, message: Data(userID.utf8), key: secret) else {
                throw HTTPResponseError(
                    status: 403, code: "user_not_verified",
                    message: "user_hash is missing or wrong: it is hex HMAC-SHA256 of user_id under the server's device secret, computed by your backend")
            }
        }
        let client = context.client(request).address
        if !bearer, let retry = context.creationBudget.retryAfter(client) {
            let token = registration.token
            guard try await context.read({ try $0.device(token) != nil }) else {
                context.creationBudget.refused()
                throw CreationBudget.overBudget(retryAfter: retry, creating: "a new device token")
            }
        }
        let nowMs = ServerContext.nowMs
        let registered = try await context.write { store in
            try store.registerDevices([Self.registration(registration, nowMs: nowMs)])[0]
        }
        if registered.created && !bearer { context.creationBudget.charge(client) }
        let body = Self.answer(registration, registered, nowMs: nowMs)
        return ServerResponse(status: registered.created ? 201 : 200, contentType: "application/json", body: body.jsonData() + Data("\n".utf8))
    }

    /// The store's registration of a checked request.
    static func registration(_ request: DeviceRegistrationRequest, nowMs: Int) -> DeviceRegistration {
        DeviceRegistration(
            token: request.token, provider: request.provider, platform: request.platform, userID: request.userID, appVersion: request.appVersion,
            registeredAtMs: nowMs, tags: request.tags, recipientReceipts: request.recipientReceipts)
    }

    /// The answer's object: the registration, `created`, and the device's credential.
    static func answer(_ request: DeviceRegistrationRequest, _ registered: DeviceRegistered, nowMs: Int) -> RichPushJSONValue {
        var body: [String: RichPushJSONValue] = [
            "token": .string(request.token), "provider": .string(request.provider), "platform": .string(request.platform),
            "user_id": request.userID.map(RichPushJSONValue.string) ?? .null, "app_version": request.appVersion.map(RichPushJSONValue.string) ?? .null,
            "registered_at": .string(SQLiteStore.iso8601(nowMs)), "created": .bool(registered.created), "device_id": .string(registered.deviceID),
            "device_secret": .string(registered.deviceSecret), "recipient_receipts": .bool(registered.recipientReceipts),
        ]
        if let tags = request.tags { body["tags"] = .array(tags.map(RichPushJSONValue.string)) }
        return .object(body)
    }

    /// Hex → bytes, `nil` for anything else.
    static func bytes(hex: String) -> Data? {
        var out = Data()
        var iterator = hex.utf8.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let h = nibble(high), let l = nibble(low) else { return nil }
            out.append(h << 4 | l)
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 97...102: return c - 87
        case 65...70: return c - 55
        default: return nil
        }
    }
}
