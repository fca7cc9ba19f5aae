import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `openapi.yaml` (issue 23, item 1) against the server: every route of the route table is in
/// the document and every documented operation is a route (method + path template), the limits
/// the document states are the code's constants, and `GET /openapi.yaml` serves the file's bytes.
@Suite("openapi.yaml: the document matches the routes and the limits")
struct OpenAPIDocumentTests {
    /// The server's route table, the media edge's routes included (they exist only with
    /// `--media-store-bytes`).
    static func routeTable() throws -> (InProcessServer, RouteTable) {
        let server = try InProcessServer {
            $0.mediaEdge = try? MediaEdgeSettings(publicURL: "http://127.0.0.1", storeBytes: 1_000_000, allowHTTP: true)
        }
        return (server, server.server.router.admission.routes)
    }

    @Test("every route in the route table is documented, and every documented operation is a route")
    func routesMatch() async throws {
        let document = try await OpenAPIFile.load()
        let (server, routes) = try Self.routeTable()
        defer { _ = server }
        let mismatches = OpenAPIRouteComparison.mismatches(document: document, routes: routes)
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        // Each documented operation names an operationId (clients are generated from them).
        for (path, method, operation) in OpenAPIRouteComparison.operations(document) {
            #expect(operation["operationId"] is String, "\(method) \(path) has no operationId")
        }
    }

    @Test("the comparison reports a route missing from the document and an operation that is no route")
    func comparisonFindsBothDirections() async throws {
        var document = try await OpenAPIFile.load()
        let (server, routes) = try Self.routeTable()
        defer { _ = server }
        var paths = try #require(document["paths"] as? [String: Any])
        paths["/healthz"] = nil
        paths["/v1/pushes/{push_id}/opens"] = ["get": ["operationId": "x"]]
        var media = try #require(paths["/m/{sha256}.{ext}"] as? [String: Any])
        media["delete"] = ["operationId": "y"]
        paths["/m/{sha256}.{ext}"] = media
        document["paths"] = paths
        let mismatches = Set(OpenAPIRouteComparison.mismatches(document: document, routes: routes))
        #expect(mismatches.contains("GET /healthz: in the route table, not in openapi.yaml"))
        #expect(mismatches.contains("GET /v1/pushes/{push_id}/opens: in openapi.yaml, not in the route table"))
        #expect(mismatches.contains("DELETE /m/{sha256}.{ext}: in openapi.yaml, not in the route table"))
        #expect(mismatches.count == 3, "\(mismatches.sorted())")
    }

    @Test("the documented limits are the code's constants")
    func limitsMatch() async throws {
        let document = try await OpenAPIFile.load()
        let schemas = "/components/schemas"
        let integers: [(pointer: String, value: Int)] = [
            ("\(schemas)/PushID/maxLength", RichPushReceipt.Limits.identifierBytes),
            ("\(schemas)/ReceiptForm/properties/receipt_id/maxLength", RichPushReceipt.Limits.identifierBytes),
            ("\(schemas)/Receipt/properties/receipt_id/oneOf/0/maxLength", RichPushReceipt.Limits.identifierBytes),
            ("\(schemas)/Code/maxLength", RichPushReceipt.Limits.codeBytes),
            ("\(schemas)/ReceiptForm/properties/media_type/maxLength", RichPushReceipt.Limits.mediaTypeBytes),
            ("\(schemas)/Receipt/properties/media_type/maxLength", RichPushReceipt.Limits.mediaTypeBytes),
            ("\(schemas)/ReceiptForm/properties/elapsed_ms/maximum", RichPushReceipt.Limits.maximumElapsedMs),
            ("\(schemas)/Receipt/properties/elapsed_ms/maximum", RichPushReceipt.Limits.maximumElapsedMs),
            ("\(schemas)/ReceiptForm/properties/media_bytes/maximum", RichPushReceipt.Limits.maximumMediaBytes),
            ("\(schemas)/Receipt/properties/media_bytes/maximum", RichPushReceipt.Limits.maximumMediaBytes),
            ("\(schemas)/PushSendRequest/properties/tokens/maxItems", PushSendRequest.maximumTokens),
            ("\(schemas)/PushSendRequest/properties/user_ids/maxItems", PushSendRequest.maximumUserIDs),
            ("\(schemas)/PushSendRequest/properties/expiration/maximum", PushSendRequest.maximumExpiration),
            ("\(schemas)/RecordedSendRequest/properties/results/maxItems", PushSendRequest.maximumTokens),
            ("\(schemas)/RecordedSendRequest/properties/batch_id/maxLength", RichPushReceipt.Limits.identifierBytes),
            ("\(schemas)/RecordedSendRequest/properties/sent/maximum", RecordedSendRequest.maximumCount),
            ("\(schemas)/RecordedSendRequest/properties/accepted/maximum", RecordedSendRequest.maximumCount),
            ("\(schemas)/RecordedSendRequest/properties/skipped/maximum", RecordedSendRequest.maximumCount),
            ("\(schemas)/DeviceToken/maxLength", DeviceTokenRule.maximumBytes),
            ("\(schemas)/DeviceToken/maxLength", DeviceRegistrationRequest.maximumTokenBytes),
            ("\(schemas)/UserID/maxLength", DeviceRegistrationRequest.maximumUserIDBytes),
            ("\(schemas)/AppVersion/maxLength", DeviceRegistrationRequest.maximumAppVersionBytes),
            ("/components/parameters/Limit/schema/maximum", PushQuery.maximumLimit),
            ("/components/parameters/IdempotencyKey/schema/maxLength", IdempotencyKey.maximumBytes),
            ("/paths/~1v1~1receipts/post/requestBody/content/text~1plain/schema/maxLength", ServerConfiguration(adminToken: "x").maximumBody),
            ("\(schemas)/DeviceTag/maxLength", DeviceTagRule.maximumBytes),
            ("\(schemas)/DeviceTags/maxItems", DeviceTagRule.maximumCount),
            ("\(schemas)/AudienceTokens/properties/tokens/maxItems", CampaignRequest.maximumTokens),
            ("\(schemas)/AudienceUserIDs/properties/user_ids/maxItems", CampaignRequest.maximumUserIDs),
            ("\(schemas)/TagSelector/properties/any/maxItems", DeviceTagRule.maximumCount),
            ("\(schemas)/CampaignRequest/properties/per_minute/maximum", CampaignRequest.maximumPerMinute),
            ("\(schemas)/CampaignRequest/properties/expiration/maximum", PushSendRequest.maximumExpiration),
            ("/components/parameters/CampaignLimit/schema/maximum", ListCampaignsEndpoint.maximumLimit),
            ("\(schemas)/CampaignRequest/properties/queue_priority/maximum", CampaignRequest.maximumQueuePriority),
            ("\(schemas)/CampaignRequest/properties/attribution_hours/maximum", CampaignRequest.maximumAttributionHours),
            ("\(schemas)/CampaignRequest/properties/variants/minItems", CampaignRequest.variantCounts.lowerBound),
            ("\(schemas)/CampaignRequest/properties/variants/maxItems", CampaignRequest.variantCounts.upperBound),
            ("\(schemas)/CampaignTest/properties/window_minutes/maximum", CampaignRequest.maximumTestWindowMinutes),
            ("\(schemas)/DeviceBatchRequest/properties/devices/maxItems", RegisterDevicesBatchEndpoint.maximumDevices),
            ("/paths/~1v1~1devices~1batch/post/requestBody/x-maximum-body-bytes", RegisterDevicesBatchEndpoint.maximumBodyBytes),
            ("/paths/~1v1~1pushes~1{push_id}~1recipients/get/parameters/2/schema/maximum", RecipientsEndpoint.maximumLimit),
            ("/paths/~1v1~1users~1{user_id}~1pushes/get/parameters/1/schema/maximum", UserPushesEndpoint.maximumLimit),
        ]
        for (pointer, value) in integers {
            let documented = OpenAPIFile.value(at: pointer, in: document) as? Int
            #expect(documented == value, "\(pointer) is \(documented.map(String.init) ?? "missing"); the code's bound is \(value)")
        }
        let enums: [(pointer: String, values: Set<String>)] = [
            ("\(schemas)/Platform/enum", DeviceRegistrationRequest.platforms),
            ("\(schemas)/PushType/enum", Set(APNsPushType.documented.map(\.rawValue))),
            ("\(schemas)/RecordedResult/properties/outcome/enum", RecordedSendRequest.outcomes),
            ("\(schemas)/TokenResult/properties/outcome/enum", RecordedSendRequest.outcomes),
            ("\(schemas)/ReceiptForm/properties/event/enum", Set(RichPushReceipt.Event.known.map(\.rawValue))),
            ("\(schemas)/AudienceAll/properties/platform/enum", DeviceRegistrationRequest.platforms),
            ("\(schemas)/MediaMode/enum", Set(PushMediaOptions.Mode.allCases.map(\.rawValue))),
        ]
        for (pointer, values) in enums {
            let documented = (OpenAPIFile.value(at: pointer, in: document) as? [Any]).map { Set($0.compactMap { $0 as? String }) }
            #expect(documented == values, "\(pointer) is \(documented.map { $0.sorted() } ?? []); the code takes \(values.sorted())")
        }
    }

    @Test("every request body states the endpoint's body bound (x-maximum-body-bytes)")
    func bodyBoundsMatch() async throws {
        let document = try await OpenAPIFile.load()
        let (server, routes) = try Self.routeTable()
        defer { _ = server }
        var checked = 0
        for (path, method, operation) in OpenAPIRouteComparison.operations(document) {
            guard let body = operation["requestBody"] as? [String: Any] else { continue }
            let sample = OpenAPIRouteComparison.sample(path)
            let endpoint = try #require(routes.route(for: sample)?.route.endpoint(method), "\(method) \(path)")
            #expect(body["x-maximum-body-bytes"] as? Int == endpoint.maximumBody, "\(method) \(path): the endpoint reads \(endpoint.maximumBody) bytes")
            checked += 1
        }
        #expect(checked == 8)
    }

    @Test("GET /openapi.yaml answers the repository's openapi.yaml as application/yaml, without credentials")
    func servedInProcess() async throws {
        let file = try Data(contentsOf: OpenAPIFile.url)
        #expect(OpenAPIDocument.bytes == file, "the embedded document differs from openapi.yaml: rebuild")
        let server = try InProcessServer()
        let r = try await server.client().request("GET", "/openapi.yaml")
        #expect(r.status == 200)
        #expect(r.headers["content-type"] == "application/yaml")
        #expect(r.body == file)
        let head = try await server.client().request("HEAD", "/openapi.yaml")
        #expect(head.status == 200)
    }

    @Test("an installed richpush (alone in a directory, run from another) serves the same document")
    func servedByInstalledBinary() async throws {
        let directory = try Fixtures.temporaryDirectory("openapi-installed")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bin = directory.appendingPathComponent("bin")
        let elsewhere = directory.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        // The binary alone, without the build directory around it (no resource bundle): a hard
        // link, or a copy when the temporary directory is on another file system (a tmpfs).
        let installed = bin.appendingPathComponent("richpush")
        do {
            try FileManager.default.linkItem(at: Fixtures.richpushBinary, to: installed)
        } catch {
            try FileManager.default.copyItem(at: Fixtures.richpushBinary, to: installed)
        }
        let command = "cd '\(elsewhere.path)' && exec '\(installed.path)' serve --port 0 --db '\(elsewhere.path)/r.sqlite' --admin-token \(ServerProcess.token)"
        let child = ChildProcess("/bin/sh", ["-c", command])
        let port = try await child.start(waitingForPort: 30)
        defer { child.kill() }
        let r = try await HTTPTestClient(port: port).request("GET", "/openapi.yaml")
        #expect(r.status == 200)
        #expect(r.headers["content-type"] == "application/yaml")
        #expect(r.body == (try Data(contentsOf: OpenAPIFile.url)))
    }
}
