import Foundation
import RichPushCore
import RichPushProvider

/// `POST /v1/devices` and `DELETE /v1/devices/{token}`: the app registers its device token, or
/// removes it.
///
/// Who may call: apps, so both are open (no admin token: it must never ship inside an app) and
/// every field is checked as hostile input (`DeviceRegistrationRequest`). What an open endpoint
/// must not allow is tying someone else's pushes to an attacker's device, so binding a token to
/// a `user_id` (which `POST /v1/pushes` `"user_ids"` then reach) needs proof: the admin token as
/// `Authorization: Bearer` (only that header, never the dashboard cookie: no cross-site request
/// can do it), which the app's backend uses when it registers on the user's behalf, or a
/// `user_hash` = hex HMAC-SHA256(device secret, user_id) that the backend computes at login and
/// hands to the app (`richpush serve --device-secret`). `DELETE` needs the token itself, which
/// only the device (and the provider) know.
struct DeviceEndpoint {
    let store: any ReceiptStore & StatisticsStore
    let auth: AdminAuthenticator
    let secret: Data?
    let maximumBody: Int

    /// `POST /v1/devices`: `201` (new) or `200` (registered again) with the registration,
    /// `400` naming the field, `403 user_not_verified`, `413`, `415`, `503`.
    func register(_ request: HTTPRequest) -> EndpointReply {
        if request.bodyTooLarge {
            return .now(.error(413, code: "too_large", message: "a device registration is at most \(maximumBody) bytes"))
        }
        let registration: DeviceRegistrationRequest
        do {
            registration = try DeviceRegistrationRequest(body: request.body, contentType: request.header("Content-Type"))
        } catch let error as PushRequestError {
            return .now(error.response)
        } catch {
            return .now(.error(400, code: "invalid_request", message: String(describing: error)))
        }
        if let userID = registration.userID, !auth.isAuthorized(authorization: request.header("Authorization"), cookie: nil) {
            guard let secret else {
                return .now(
                    .error(
                        403, code: "user_not_verified",
                        message:
                            "binding a token to a user_id needs proof: the admin token as Authorization: Bearer (from your backend), or a user_hash when richpush serve has --device-secret"
                    ))
            }
            guard let hash = registration.userHash, let mac = Self.bytes(hex: hash), HMACSHA256.verify(mac, message: Data(userID.utf8), key: secret) else {
                return .now(
                    .error(
                        403, code: "user_not_verified",
                        message: "user_hash is missing or wrong: it is hex HMAC-SHA256 of user_id under the server's device secret, computed by your backend"))
            }
        }
        let store = self.store
        return .later { Self.store(registration, in: store) }
    }

    /// Writes a checked registration.
    private static func store(_ registration: DeviceRegistrationRequest, in store: any ReceiptStore & StatisticsStore) -> HTTPResponse {
        let nowMs = Int(Date().timeIntervalSince1970 * 1000)
        let created: Bool
        do {
            created = try store.registerDevice(
                DeviceRegistration(
                    token: registration.token, provider: registration.provider, platform: registration.platform,
                    userID: registration.userID, appVersion: registration.appVersion, registeredAtMs: nowMs))
        } catch {
            return .error(503, code: "store_error", message: (error as? RichPushError)?.message ?? String(describing: error), headers: [("Retry-After", "1")])
        }
        let body: [String: JSONValue] = [
            "token": .string(registration.token), "provider": .string(registration.provider), "platform": .string(registration.platform),
            "user_id": registration.userID.map(JSONValue.string) ?? .null, "app_version": registration.appVersion.map(JSONValue.string) ?? .null,
            "registered_at": .string(SQLiteStore.iso8601(nowMs)), "created": .bool(created),
        ]
        return HTTPResponse(status: created ? 201 : 200, contentType: "application/json", body: JSONValue.object(body).jsonData() + Data("\n".utf8))
    }

    /// `DELETE /v1/devices/{token}`: `200 {token, deleted}`; the token is skipped by later sends
    /// until it registers again. `400` for something that is not a token.
    func unregister(_ token: String) -> EndpointReply {
        guard let normalized = DeviceTokenRule.canonical(token, provider: nil) else {
            return .now(.error(400, code: "invalid_token", message: "DELETE /v1/devices/{token}: the token is \(DeviceTokenRule.summary)"))
        }
        let store = self.store
        return .later { Self.unregister(normalized, in: store) }
    }

    /// Removes a registration and marks the token deleted.
    private static func unregister(_ normalized: String, in store: any ReceiptStore & StatisticsStore) -> HTTPResponse {
        do {
            let existed = try store.unregisterDevice(normalized, atMs: Int(Date().timeIntervalSince1970 * 1000))
            let body: JSONValue = .object(["token": .string(normalized), "deleted": .bool(existed)])
            return HTTPResponse(status: 200, contentType: "application/json", body: body.jsonData() + Data("\n".utf8))
        } catch {
            return .error(503, code: "store_error", message: (error as? RichPushError)?.message ?? String(describing: error), headers: [("Retry-After", "1")])
        }
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
