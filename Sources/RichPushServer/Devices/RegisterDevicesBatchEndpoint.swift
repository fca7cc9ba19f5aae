import Foundation
import RichPushCore

/// `POST /v1/devices/batch` (admin: the app's backend registers its users' devices): up to
/// 10,000 registrations in one request, each checked as `POST /v1/devices` checks one, the valid
/// ones stored in one transaction; idempotent per token (sending the same token again registers it
/// again: `created: false`, the same `device_id`). `200 {registered, failed, results: [{index,
/// token, status: 201 | 200 | 400, created, device_id, device_secret, recipient_receipts} or
/// {index, status: 400, error: {code, field, message}}]}` in request order; `413` over 10,000
/// items or 8 MB; `503` when the store failed (nothing was registered).
struct RegisterDevicesBatchEndpoint: Endpoint {
    let context: ServerContext

    /// The most registrations per request.
    static let maximumDevices = 10_000
    /// The largest body: 10,000 registrations of a few hundred bytes.
    static let maximumBodyBytes = 8 * 1_048_576

    var access: EndpointAccess { .admin }
    var contentTypes: [String]? { ["application/json"] }
    var noStore: Bool { true }
    var maximumBody: Int { Self.maximumBodyBytes }
    var tooLarge: HTTPResponseError {
        HTTPResponseError(
            status: 413, code: "too_large",
            message: "a batch registration body is at most \(Self.maximumBodyBytes) bytes (and \(Self.maximumDevices) devices): split the list")
    }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        if request.bodyTooLarge { throw tooLarge }
        let root = try JSONRequestBody.object(request.body, known: ["devices"], example: "e.g. {\"devices\": [{\"token\": \"<hex>\", \"platform\": \"ios\"}]}")
        let list = try JSONRequestBody.list(
            root["devices"] ?? .null, field: "devices", maximum: Self.maximumDevices, expected: "a non-empty array of registrations",
            split: "split the list into requests of at most \(Self.maximumDevices)")
        var results = [RichPushJSONValue?](repeating: nil, count: list.count)
        var valid: [(index: Int, request: DeviceRegistrationRequest)] = []
        for (index, item) in list.enumerated() {
            do {
                guard let object = item.objectValue else {
                    throw HTTPResponseError(
                        field: "devices[\(index)]", message: "each item is a registration object, e.g. {\"token\": \"<hex>\", \"platform\": \"ios\"}")
                }
                if let extra = object.keys.sorted().first(where: { !DeviceRegistrationRequest.fields.contains($0) || $0 == "user_hash" }) {
                    throw HTTPResponseError(
                        field: extra, message: "unknown field \(extra.prefix(64)) (user_hash is not needed: the admin token registers users)")
                }
                valid.append((index, try DeviceRegistrationRequest(object)))
            } catch let error as HTTPResponseError {
                var body = error.response.body
                if body.last == 10 { body.removeLast() }
                results[index] = .object(["index": .int(index), "status": .int(400), "error": (try? RichPushJSONValue.parse(body))?["error"] ?? .null])
            }
        }
        let nowMs = ServerContext.nowMs
        let registrations = valid.map { RegisterDeviceEndpoint.registration($0.request, nowMs: nowMs) }
        let registered = try await context.write { store in try store.registerDevices(registrations) }
        for (item, result) in zip(valid, registered) {
            guard case .object(var object) = RegisterDeviceEndpoint.answer(item.request, result, nowMs: nowMs) else { continue }
            object["index"] = .int(item.index)
            object["status"] = .int(result.created ? 201 : 200)
            results[item.index] = .object(object)
        }
        let body: RichPushJSONValue = .object([
            "registered": .int(valid.count), "failed": .int(list.count - valid.count), "results": .array(results.map { $0 ?? .null }),
        ])
        return ServerResponse(status: 200, contentType: "application/json", body: body.jsonData(sortedKeys: true) + Data("\n".utf8))
    }
}
