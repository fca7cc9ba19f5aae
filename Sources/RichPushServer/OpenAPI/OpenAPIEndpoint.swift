import Foundation

/// `GET /openapi.yaml` (open): the OpenAPI document of this server (`OpenAPIDocument`), as
/// `application/yaml`.
struct OpenAPIEndpoint: Endpoint {
    var access: EndpointAccess { .open }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        ServerResponse(status: 200, contentType: OpenAPIDocument.mediaType, body: OpenAPIDocument.bytes)
    }
}
