import Foundation

/// The server's OpenAPI 3.1 document (`openapi.yaml` at the repository root), compiled into the
/// binary (SwiftPM `embedInCode`, through the symlink `Sources/RichPushServer/OpenAPI/openapi.yaml`),
/// so `GET /openapi.yaml` answers the same bytes from any working directory and from an installed
/// binary without its source tree.
public enum OpenAPIDocument {
    /// The document's media type (RFC 9512).
    public static let mediaType = "application/yaml"

    /// The document's bytes (UTF-8 YAML).
    public static let bytes = Data(PackageResources.openapi_yaml)
}
