import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Variants that pick a winner by what users saw (issue 29 item 6): a campaign with two variants
/// and a test share sends each variant (its own push id and funnel) to its part of the test, waits
/// for the window, picks the winner by opened ÷ displayed, and sends the winner to the rest. The
/// seeded receipts give B a 30 % attach failure (text shown instead of its image, opened less):
/// B wins on opened ÷ sent, A on opened ÷ displayed, and A goes to the rest.
@Suite("campaigns: variants and the winner", .serialized)
struct CampaignVariantsTests {
    /// Posts anonymous receipts for `push`: `delivered` with each outcome, then `opened`.
    static func receipts(_ server: ServerProcess, _ push: String, attached: Int, textOnly: Int, opened: Int) async throws {
        let client = server.client()
        func post(_ event: String, _ outcome: String?, _ n: Int) async throws {
            var form = "push_id=\(push)&event=\(event)&receipt_id=\(event)-\(n)"
            if let outcome { form += "&outcome=\(outcome)" }
            #expect(try await client.post("/v1/receipts", form: form).status == 202)
        }
        for n in 0..<attached { try await post("delivered", "media_attached", n) }
        for n in 0..<textOnly { try await post("delivered", "text_only", attached + n) }
        for n in 0..<opened { try await post("opened", nil, n) }
    }

    /// The mock's push ids per token.
    static func pushes(_ mock: MockAPNsProcess) async throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        for (token, list) in try await mock.stats()["per_token_push"]?.objectValue ?? [:] {
            out[token] = list.arrayValue?.compactMap(\.stringValue) ?? []
        }
        return out
    }

    /// How many sends carried `push`.
    static func count(_ sent: [String: [String]], _ push: String) -> Int {
        var n = 0
        for list in sent.values { n += list.filter { $0 == push }.count }
        return n
    }

    static func scenario(_ servers: [ServerProcess], mock: MockAPNsProcess, tokens: [String]) async throws {
        let body: [String: Any] = [
            "audience": ["tokens": tokens], "push_id": "spring", "media": "off",
            "variants": [
                ["title": "Spring sale", "image": "https://cdn.example.com/a.jpg", "weight": 50],
                ["title": "Sale: -30 %", "image": "https://cdn.example.com/b.webp", "weight": 50],
            ],
            "test": ["share": 40, "window_minutes": 1, "winner_by": "display_to_open"],
        ]
        let created = try await CampaignHarness.create(servers[0], body)
        #expect(created.status == 202, "\(created.text)")
        let id = try #require(try created.json()["campaign_id"] as? String)
        // The test: 40 of 100, 20 each; the rest waits for the winner.
        _ = try await CampaignHarness.waitFor(servers, id, timeout: 60) { ($0["sent"] as? Int ?? 0) == 40 }
        var sent = try await Self.pushes(mock)
        #expect(Self.count(sent, "spring.a") == 20)
        #expect(Self.count(sent, "spring.b") == 20)
        #expect(sent.count == 40)
        // What users saw: A shown on 14 (all with the image), opened 4; B shown on all 20, but its
        // image failed on 6 (30 %: text only), opened 5.
        try await Self.receipts(servers[servers.count - 1], "spring.a", attached: 14, textOnly: 0, opened: 4)
        try await Self.receipts(servers[servers.count - 1], "spring.b", attached: 14, textOnly: 6, opened: 5)
        let done = try await CampaignHarness.waitFor(servers, id, timeout: 180)
        let test = try #require(done["test"] as? [String: Any])
        #expect(test["winner"] as? String == "A", "\(test)")
        // Every token once: the test's 40 their variant, the 60 others A.
        sent = try await Self.pushes(mock)
        #expect(sent.count == 100)
        #expect(sent.values.allSatisfy { $0.count == 1 })
        #expect(Self.count(sent, "spring.a") == 80)
        #expect(Self.count(sent, "spring.b") == 20)
        // Each variant's funnel.
        let variants = try #require(done["variants"] as? [[String: Any]])
        let a = try #require(variants.first { $0["variant"] as? String == "A" })
        let b = try #require(variants.first { $0["variant"] as? String == "B" })
        let aFunnel = ["sent", "displayed", "opened"].map { a[$0] as? Int ?? -1 }
        #expect(aFunnel == [80, 14, 4])
        let bFunnel = ["sent", "displayed", "displayed_with_media", "opened"].map { b[$0] as? Int ?? -1 }
        #expect(bFunnel == [20, 20, 14, 5])
        // The page shows the variants and the winner.
        let page = try await servers[0].client().request("GET", "/campaigns/\(id)", headers: servers[0].admin).text
        #expect(page.contains("<h2>Variants</h2>") && page.contains("winner"))
    }

    @Test("SQLite: B wins on opened ÷ sent, A on opened ÷ displayed; A goes to the other 60")
    func sqlite() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments() + ["--campaign-chunk-size", "10"])
        try await Self.scenario([server], mock: mock, tokens: CampaignHarness.tokens(100, prefix: "a9"))
        #expect(await server.terminate() == 0)
    }

    @Test("PostgreSQL, 2 instances: the same, the winner picked once")
    func postgres() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let servers = try await MultiInstanceTests.startInstances(
            2, url: database.url, extraArguments: mock.serveArguments() + ["--campaign-chunk-size", "10"])
        try await Self.scenario(servers, mock: mock, tokens: CampaignHarness.tokens(100, prefix: "b9"))
        for server in servers { #expect(await server.terminate() == 0) }
    }

    @Test("the ranking: opened ÷ displayed, or conversions ÷ sent; ties to more displays, then the first; no data: the first, said so")
    func ranking() {
        func funnel(_ v: String, sent: Int, displayed: Int, opened: Int, converted: Int = 0) -> VariantFunnel {
            VariantFunnel(
                variant: v, pushID: "p.\(v)", weight: 50, sent: sent, accepted: sent, displayed: displayed, displayedWithMedia: displayed, opened: opened,
                converted: converted, conversionValue: 0)
        }
        let a = funnel("A", sent: 20, displayed: 14, opened: 4), b = funnel("B", sent: 20, displayed: 20, opened: 5)
        #expect(VariantRanking.winner([a, b], by: .displayToOpen)?.variant == "A")
        #expect(
            VariantRanking.winner(
                [funnel("A", sent: 10, displayed: 10, opened: 1, converted: 1), funnel("B", sent: 10, displayed: 10, opened: 1, converted: 3)], by: .conversions
            )?.variant == "B")
        #expect(
            VariantRanking.winner([funnel("A", sent: 10, displayed: 4, opened: 1), funnel("B", sent: 10, displayed: 8, opened: 2)], by: .displayToOpen)?.variant
                == "B")
        let none = VariantRanking.winner([funnel("A", sent: 10, displayed: 0, opened: 0), funnel("B", sent: 10, displayed: 0, opened: 0)], by: .displayToOpen)
        #expect(none?.variant == "A")
        #expect(none?.summary.contains("no display was reported") == true)
    }

    @Test("the request: 2–5 variants, weights adding up to 100 or none, a test needs variants, its fields checked")
    func request() throws {
        func parse(_ json: String) throws -> CampaignRequest {
            try CampaignRequest(body: Data(json.utf8), defaultTopic: "com.example.app", nowMs: 1_000)
        }
        let even = try parse(#"{"audience":{"all":true},"push_id":"p","variants":[{"title":"a"},{"title":"b"},{"title":"c"}]}"#)
        #expect(even.variants.map(\.weight) == [34, 33, 33])
        #expect(even.variants.map(\.content.pushID) == ["p.a", "p.b", "p.c"])
        for (json, field) in [
            (#"{"audience":{"all":true},"variants":[{"title":"a"}]}"#, "variants"),
            (#"{"audience":{"all":true},"variants":[{"title":"a","weight":60},{"title":"b","weight":30}]}"#, "variants"),
            (#"{"audience":{"all":true},"variants":[{"title":"a","color":"red"},{"title":"b"}]}"#, "variants[0].color"),
            (#"{"audience":{"all":true},"title":"x","test":{"share":10,"window_minutes":5}}"#, "test"),
            (#"{"audience":{"all":true},"variants":[{"title":"a"},{"title":"b"}],"test":{"share":0,"window_minutes":5}}"#, "test.share"),
            (
                #"{"audience":{"all":true},"variants":[{"title":"a"},{"title":"b"}],"test":{"share":10,"window_minutes":5,"winner_by":"clicks"}}"#,
                "test.winner_by"
            ),
            (#"{"audience":{"all":true},"variants":[{"title":"a","push_id":"x"},{"title":"b","push_id":"x"}]}"#, "variants[1].push_id"),
            (#"{"audience":{"all":true},"variants":[{"title":"a","priority":7},{"title":"b"}]}"#, "variants[0].priority"),
            (#"{"audience":{"all":true},"title":"x","queue_priority":10}"#, "queue_priority"),
        ] {
            do {
                _ = try parse(json)
                Issue.record("accepted: \(json)")
            } catch let error as HTTPResponseError {
                #expect(error.field == field, "\(json): \(error.message)")
            }
        }
    }
}
