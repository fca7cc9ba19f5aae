import Foundation

/// `GET /v1/pushes` (admin): a page of JSON figures (`limit`, `prefix`, `from`, `to`, `after`,
/// `before`: `ListParameters`); `400 invalid_query` naming the parameter's problem, `503` when the
/// store failed.
struct ListPushesEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .admin }
    var noStore: Bool { true }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let parameters = try ListParameters.parse({ request.query[$0] }, defaultLimit: 100)
        return .json(200, PushList(try await context.read { try $0.pushes(parameters.query) }))
    }
}
