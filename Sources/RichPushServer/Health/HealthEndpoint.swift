import Foundation

/// `GET /healthz` (open): `200 {"status":"ok"}`, or `503 {"status":"unavailable","reason":…}`
/// while the store's database is unreachable (PostgreSQL).
struct HealthEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .open }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let health = context.store.health()
        guard health.isAvailable else {
            return .json(503, ["status": "unavailable", "reason": health.reason ?? "the store is unavailable"])
        }
        return .json(200, ["status": "ok"])
    }
}
