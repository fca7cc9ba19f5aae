import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// What the campaign tests share: creating a campaign over HTTP, waiting for its state, the
/// mock's per-token counts.
enum CampaignHarness {
    /// `POST /v1/campaigns` with `body` (and an `Idempotency-Key`).
    static func create(_ server: ServerProcess, _ body: [String: Any], key: String? = nil) async throws -> HTTPTestClient.Response {
        try await create(server, json: try json(body), key: key)
    }

    /// `POST /v1/campaigns` with the JSON text `json` (and an `Idempotency-Key`).
    static func create(_ server: ServerProcess, json: String, key: String? = nil) async throws -> HTTPTestClient.Response {
        var headers = server.admin
        if let key { headers["Idempotency-Key"] = key }
        return try await server.client().postJSON("/v1/campaigns", json, headers: headers)
    }

    /// `body` as JSON text.
    static func json(_ body: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    /// Creates a campaign and returns its id (the answer must be 202).
    static func createID(_ server: ServerProcess, _ body: [String: Any]) async throws -> String {
        let r = try await create(server, body)
        guard r.status == 202, let id = try r.json()["campaign_id"] as? String else {
            throw TestSupportError("POST /v1/campaigns: \(r.status) \(r.text)")
        }
        return id
    }

    /// `GET /v1/campaigns/{id}` from `server`.
    static func campaign(_ server: ServerProcess, _ id: String) async throws -> [String: Any] {
        let r = try await server.client().request("GET", "/v1/campaigns/\(id)", headers: server.admin)
        guard r.status == 200 else { throw TestSupportError("GET /v1/campaigns/\(id): \(r.status) \(r.text)") }
        return try r.json()
    }

    /// Polls the campaign (from the first of `servers` that answers) until `done` says so, at
    /// most `timeout` seconds.
    static func waitFor(
        _ servers: [ServerProcess], _ id: String, timeout: Double = 60, until done: ([String: Any]) -> Bool = { $0["state"] as? String == "finished" }
    ) async throws -> [String: Any] {
        let clock = ContinuousClock()
        let end = clock.now + .milliseconds(Int(timeout * 1000))
        var last: [String: Any] = [:]
        while clock.now < end {
            for server in servers {
                guard let c = try? await campaign(server, id) else { continue }
                last = c
                if done(c) { return c }
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSupportError("campaign \(id) not there after \(timeout) s: \(last)")
    }

    /// The mock's requests per device token.
    static func perToken(_ mock: any APNsMockCounts) async throws -> [String: Int] {
        var out: [String: Int] = [:]
        for (token, count) in try await mock.stats()["per_token"]?.objectValue ?? [:] { out[token] = count.integerLiteralValue ?? -1 }
        return out
    }

    /// The mock's requests per `apns-collapse-id` (`""`: none).
    static func collapseIDs(_ mock: any APNsMockCounts) async throws -> [String: Int] {
        var out: [String: Int] = [:]
        for (id, count) in try await mock.stats()["collapse_ids"]?.objectValue ?? [:] { out[id] = count.integerLiteralValue ?? -1 }
        return out
    }

    /// `count` distinct APNs tokens: 64 hex digits, `prefix` then the number.
    static func tokens(_ count: Int, prefix: String) -> [String] {
        (0..<count).map { i in
            let digits = String(i, radix: 16)
            return prefix + String(repeating: "0", count: 64 - prefix.count - digits.count) + digits
        }
    }

    /// Registers `tokens` through `POST /v1/devices` (with `tags`, on `platform`).
    static func register(_ server: ServerProcess, _ tokens: [String], platform: String = "ios", tags: [String]? = nil) async throws {
        let client = server.client()
        for token in tokens {
            var body: [String: Any] = ["token": token, "platform": platform]
            if let tags { body["tags"] = tags }
            let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
            let r = try await client.postJSON("/v1/devices", json)
            guard r.status == 201 || r.status == 200 else { throw TestSupportError("POST /v1/devices: \(r.status) \(r.text)") }
        }
    }

    /// What every finished campaign must show: each target exactly one result, the counters
    /// adding up, and every send carrying the campaign's collapse id.
    static func expectComplete(_ c: [String: Any], targets: Int, accepted: Int, mock: any APNsMockCounts, tokens: [String]) async throws {
        #expect(c["state"] as? String == "finished", "\(c)")
        #expect(c["targets"] as? Int == targets)
        #expect(c["accepted"] as? Int == accepted)
        #expect(c["in_flight"] as? Int == 0)
        #expect(c["pending"] as? Int == 0)
        let sent = c["sent"] as? Int ?? -1, skipped = c["skipped"] as? Int ?? -1, failed = c["failed"] as? Int ?? -1
        #expect(c["resent_after_crash"] as? Int == 0)
        #expect(failed == targets - accepted - skipped, "\(c)")
        #expect(sent + skipped == targets, "\(c)")
        let perToken = try await perToken(mock)
        for token in tokens { #expect(perToken[token] == 1, "token \(token): \(perToken[token] ?? 0) sends") }
        let collapse = try await collapseIDs(mock)
        let expected = c["collapse_id"] as? String ?? "?"
        #expect(collapse == [expected: perToken.values.reduce(0, +)], "\(collapse)")
    }
}
