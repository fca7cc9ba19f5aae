import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// Campaigns on one `richpush serve` with SQLite against `mock_apns.py` (issue 21): each
/// audience kind completes with one result per token, cancel, `send_at`, the same
/// `Idempotency-Key` 5 times at once, and a kill -9 mid-campaign followed by a restart.
@Suite("campaigns on SQLite, one richpush serve", .serialized)
struct CampaignSQLiteTests {
    @Test("tokens, tags and all: every target one send, one result, the collapse id on each; the push's funnel shows them")
    func audiences() async throws {
        let mock = try await MockAPNsProcess(script: [
            CampaignHarness.tokens(1, prefix: "dead")[0]: [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000]]
        ])
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments() + ["--campaign-chunk-size", "7"])

        // tokens: 40 listed (one twice), one of them inactive at APNs.
        let listed = CampaignHarness.tokens(39, prefix: "a1") + CampaignHarness.tokens(1, prefix: "dead")
        let created = try await CampaignHarness.create(
            server, ["audience": ["tokens": listed + [listed[0]]], "push_id": "camp-tokens", "title": "Sale", "body": "Today only"])
        #expect(created.status == 202, "\(created.text)")
        let answer = try created.json()
        #expect(answer["targets"] as? Int == 40)
        #expect(answer["push_id"] as? String == "camp-tokens")
        #expect(["running", "finished"].contains(answer["state"] as? String ?? ""))
        let id = try #require(answer["campaign_id"] as? String)
        let done = try await CampaignHarness.waitFor([server], id)
        try await CampaignHarness.expectComplete(done, targets: 40, accepted: 39, mock: mock, tokens: listed)
        #expect(done["failed"] as? Int == 1)
        #expect(done["collapse_id"] as? String == "campaign-\(id)")
        let push = try await server.push("camp-tokens")
        #expect(push["sent"] as? Int == 40)
        #expect(push["accepted"] as? Int == 39)

        // tags: 12 devices tagged beta, 8 others; the inactive token (now recorded) is skipped.
        let beta = CampaignHarness.tokens(12, prefix: "b2")
        let others = CampaignHarness.tokens(8, prefix: "c3")
        try await CampaignHarness.register(server, beta, tags: ["beta", "lang:fr"])
        try await CampaignHarness.register(server, others, platform: "android", tags: ["stable"])
        let tagged = try await CampaignHarness.createID(
            server, ["audience": ["tags": ["any": ["beta", "nobody"]]], "push_id": "camp-tags", "title": "Beta", "collapse_id": "beta-news"])
        let tagsDone = try await CampaignHarness.waitFor([server], tagged)
        #expect(tagsDone["targets"] as? Int == 12)
        #expect(tagsDone["accepted"] as? Int == 12)
        #expect(tagsDone["collapse_id"] as? String == "beta-news")
        let perToken = try await CampaignHarness.perToken(mock)
        for token in beta { #expect(perToken[token] == 1) }
        for token in others { #expect(perToken[token] == nil) }

        // all, platform ios: the 12 beta devices (the others are android).
        let everyone = try await CampaignHarness.createID(server, ["audience": ["all": true, "platform": "ios"], "push_id": "camp-all", "title": "All"])
        let allDone = try await CampaignHarness.waitFor([server], everyone)
        #expect(allDone["targets"] as? Int == 12)
        #expect(allDone["accepted"] as? Int == 12)
        for (token, count) in try await CampaignHarness.perToken(mock) where beta.contains(token) { #expect(count == 2) }

        // The list, newest first, paged.
        let page = try await server.client().request("GET", "/v1/campaigns?limit=2", headers: server.admin).json()
        let ids = (page["campaigns"] as? [[String: Any]] ?? []).compactMap { $0["campaign_id"] as? String }
        #expect(ids == [everyone, tagged])
        let next = try #require(page["next_before"] as? String)
        let rest = try await server.client().request("GET", "/v1/campaigns?limit=2&before=\(next)", headers: server.admin).json()
        #expect((rest["campaigns"] as? [[String: Any]] ?? []).compactMap { $0["campaign_id"] as? String } == [id])
        #expect(rest["next_before"] is NSNull)

        // The dashboard's pages: the list links each campaign; a campaign's page shows its progress.
        let listPage = try await server.client().request("GET", "/campaigns", headers: server.admin)
        #expect(listPage.status == 200)
        #expect(listPage.text.contains("href=\"/campaigns/\(tagged)\""))
        #expect(listPage.text.contains("12/12"))
        let campaignPage = try await server.client().request("GET", "/campaigns/\(id)", headers: server.admin)
        #expect(campaignPage.status == 200)
        #expect(campaignPage.text.contains("campaign \(id)"))
        #expect(campaignPage.text.contains("40 / 40"))
        #expect(campaignPage.text.contains("href=\"/pushes/camp-tokens\""))
        let missing = try await server.client().request("GET", "/campaigns/00000000-0000-0000-0000-000000000000", headers: server.admin)
        #expect(missing.status == 404)
        #expect(missing.text.contains("no campaign 00000000-0000-0000-0000-000000000000"))
        // Without the admin's credential: the login form, no campaign.
        let anonymous = try await server.client().request("GET", "/campaigns/\(id)")
        #expect(anonymous.status == 401)
        #expect(!anonymous.text.contains(id))
        #expect(try await server.client().request("GET", "/", headers: server.admin).text.contains("href=\"/campaigns\""))
    }

    @Test("cancel stops new sends; send_at in the future is scheduled, then starts on time")
    func cancelAndSchedule() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let tokens = CampaignHarness.tokens(200, prefix: "e4")
        // 120 a minute: 2 a second.
        let slow = try await CampaignHarness.createID(server, ["audience": ["tokens": tokens], "title": "Slow", "per_minute": 120])
        try await Task.sleep(for: .seconds(2))
        let cancel = try await server.client().request("POST", "/v1/campaigns/\(slow)/cancel", headers: server.admin)
        #expect(cancel.status == 200, "\(cancel.text)")
        #expect(try cancel.json()["state"] as? String == "cancelled")
        try await Task.sleep(for: .seconds(1))
        let atCancel = try await CampaignHarness.perToken(mock).values.reduce(0, +)
        try await Task.sleep(for: .seconds(2))
        let later = try await CampaignHarness.perToken(mock).values.reduce(0, +)
        #expect(later == atCancel, "sends after cancel: \(later - atCancel)")
        #expect(atCancel > 0 && atCancel <= 10, "\(atCancel) sends in about 3 s at 2 a second")
        let cancelled = try await CampaignHarness.campaign(server, slow)
        #expect(cancelled["state"] as? String == "cancelled")
        #expect(cancelled["sent"] as? Int == atCancel)
        // Cancelling again is the same answer (a retried cancel).
        let again = try await server.client().request("POST", "/v1/campaigns/\(slow)/cancel", headers: server.admin)
        #expect(again.status == 200)
        #expect(try again.json()["sent"] as? Int == atCancel)

        let formatter = ISO8601DateFormatter()
        let at = Date().addingTimeInterval(3)
        let scheduled = try await CampaignHarness.create(
            server, ["audience": ["tokens": Array(tokens.prefix(5))], "title": "Later", "send_at": formatter.string(from: at)])
        #expect(scheduled.status == 202)
        #expect(try scheduled.json()["state"] as? String == "scheduled")
        let id = try #require(try scheduled.json()["campaign_id"] as? String)
        let finished = try await CampaignHarness.waitFor([server], id, timeout: 20)
        let started = try #require((finished["started_at"] as? String).flatMap(CampaignHarness.date))
        // Whole seconds in send_at: it starts at most 1 s plus a poll late, never early.
        #expect(started.timeIntervalSince(at) > -1.0 && started.timeIntervalSince(at) < 2.0, "started \(started) for \(at)")
        #expect(finished["accepted"] as? Int == 5)
        let late = try await server.client().request("POST", "/v1/campaigns/\(id)/cancel", headers: server.admin)
        #expect(late.status == 409)
        #expect((try late.json()["error"] as? [String: Any])?["code"] as? String == "not_cancellable")
    }

    @Test("the same Idempotency-Key 5 times at once: one campaign, one send per token")
    func idempotency() async throws {
        let mock = try await MockAPNsProcess(delayMs: 50)
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let tokens = CampaignHarness.tokens(30, prefix: "f5")
        let body: [String: Any] = ["audience": ["tokens": tokens], "push_id": "camp-idem", "title": "Once"]
        let json = try CampaignHarness.json(body)
        let answers = try await withThrowingTaskGroup(of: HTTPTestClient.Response.self) { group in
            for _ in 0..<5 { group.addTask { try await CampaignHarness.create(server, json: json, key: "camp-key-sqlite-1") } }
            var out: [HTTPTestClient.Response] = []
            for try await r in group { out.append(r) }
            return out
        }
        let ids = Set(answers.filter { $0.status == 202 }.compactMap { try? $0.json()["campaign_id"] as? String })
        #expect(ids.count == 1, "\(answers.map { "\($0.status) \($0.text)" })")
        #expect(answers.allSatisfy { $0.status == 202 || $0.status == 409 })
        let id = try #require(ids.first)
        let done = try await CampaignHarness.waitFor([server], id)
        try await CampaignHarness.expectComplete(done, targets: 30, accepted: 30, mock: mock, tokens: tokens)
        let replay = try await CampaignHarness.create(server, body, key: "camp-key-sqlite-1")
        #expect(replay.status == 202)
        #expect(replay.headers["idempotent-replayed"] == "true")
        #expect(try replay.json()["campaign_id"] as? String == id)
        var other = body
        other["title"] = "Twice"
        let reused = try await CampaignHarness.create(server, other, key: "camp-key-sqlite-1")
        #expect(reused.status == 409)
        let list = try await server.client().request("GET", "/v1/campaigns", headers: server.admin).json()
        #expect((list["campaigns"] as? [Any])?.count == 1)
    }

    @Test("kill -9 mid-campaign, restart: it finishes; no token with a recorded result is sent again; the resent ones carry the collapse id")
    func killAndRestart() async throws {
        // 500 ms per answer, chunks of 50: a chunk is in flight for most of each half second.
        let mock = try await MockAPNsProcess(delayMs: 500)
        defer { mock.stop() }
        let arguments = mock.serveArguments() + ["--campaign-chunk-size", "50", "--campaign-workers", "1", "--campaign-lease-seconds", "2"]
        let server = try await ServerProcess(extraArguments: arguments)
        let tokens = CampaignHarness.tokens(600, prefix: "77")
        let id = try await CampaignHarness.createID(server, ["audience": ["tokens": tokens], "push_id": "camp-kill", "title": "Crash"])
        _ = try await CampaignHarness.waitFor([server], id, timeout: 30) { ($0["sent"] as? Int ?? 0) >= 100 }
        try await server.kill9()
        let beforeRestart = try await CampaignHarness.perToken(mock)
        try await server.restart(extraArguments: arguments)
        let done = try await CampaignHarness.waitFor([server], id, timeout: 60)
        #expect(done["state"] as? String == "finished")
        #expect(done["targets"] as? Int == 600)
        #expect(done["accepted"] as? Int == 600)
        #expect(done["in_flight"] as? Int == 0)
        let resent = done["resent_after_crash"] as? Int ?? -1
        let perToken = try await CampaignHarness.perToken(mock)
        let twice = perToken.filter { $0.value == 2 }
        // Only what was in flight at the kill (one chunk: 50) can have gone twice, and each
        // resend was counted.
        #expect(perToken.values.allSatisfy { $0 == 1 || $0 == 2 }, "\(perToken.filter { $0.value > 2 })")
        #expect(Set(perToken.keys) == Set(tokens))
        #expect(twice.count <= resent, "\(twice.count) sent twice, \(resent) counted resent")
        #expect(resent <= 50)
        // A token sent twice was one the dead instance had sent, without recording its result.
        for token in twice.keys { #expect(beforeRestart[token] == 1) }
        let collapse = try await CampaignHarness.collapseIDs(mock)
        #expect(collapse == ["campaign-\(id)": perToken.values.reduce(0, +)], "\(collapse)")
    }

    @Test("SIGTERM mid-campaign finishes the chunk in hand: nothing left in flight, nothing resent after the restart")
    func gracefulStop() async throws {
        let mock = try await MockAPNsProcess(delayMs: 500)
        defer { mock.stop() }
        let arguments = mock.serveArguments() + ["--campaign-chunk-size", "50", "--campaign-lease-seconds", "2"]
        let server = try await ServerProcess(extraArguments: arguments + ["--campaign-workers", "1"])
        let tokens = CampaignHarness.tokens(400, prefix: "99")
        let id = try await CampaignHarness.createID(server, ["audience": ["tokens": tokens], "push_id": "camp-term", "title": "Stop"])
        _ = try await CampaignHarness.waitFor([server], id, timeout: 30) { ($0["sent"] as? Int ?? 0) >= 50 }
        #expect(await server.terminate() == 0)
        try await server.restart(extraArguments: arguments + ["--campaign-workers", "0"])
        let stopped = try await CampaignHarness.campaign(server, id)
        #expect(stopped["in_flight"] as? Int == 0, "\(stopped)")
        #expect((stopped["sent"] as? Int ?? 0) % 50 == 0, "whole chunks: \(stopped)")
        #expect(stopped["state"] as? String == "running")
        _ = await server.terminate()
        try await server.restart(extraArguments: arguments + ["--campaign-workers", "1"])
        let done = try await CampaignHarness.waitFor([server], id, timeout: 60)
        try await CampaignHarness.expectComplete(done, targets: 400, accepted: 400, mock: mock, tokens: tokens)
    }
}

extension CampaignHarness {
    /// An ISO 8601 time with milliseconds, as the API writes them.
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
