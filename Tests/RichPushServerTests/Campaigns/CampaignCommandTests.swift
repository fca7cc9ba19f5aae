import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `richpush campaign create|status|cancel` against a running `richpush serve` and the mock.
@Suite("richpush campaign", .serialized)
struct CampaignCommandTests {
    static func campaign(_ server: ServerProcess, _ arguments: [String]) async throws -> ChildProcess.Finished {
        try await ChildProcess(
            Fixtures.richpushBinary.path, ["campaign"] + arguments + ["--server", "http://127.0.0.1:\(server.port)", "--admin-token", ServerProcess.token]
        ).run(timeout: 60)
    }

    @Test("create --watch prints plain lines off a terminal and ends finished; status; cancel of a finished one fails; bad input is a usage error")
    func createWatchStatusCancel() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let tokens = CampaignHarness.tokens(20, prefix: "cc")
        let file = server.directory.appendingPathComponent("campaign.json")
        try Data(try CampaignHarness.json(["audience": ["tokens": tokens], "title": "From the CLI", "push_id": "cli-1"]).utf8).write(to: file)

        let created = try await Self.campaign(server, ["create", file.path, "--idempotency-key", "cli-key-1", "--watch"])
        #expect(created.status == 0, "\(created.stderr)")
        let lines = created.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("campaign ") == true, "\(created.stdout)")
        let last = try #require(lines.last.map(String.init))
        #expect(last.contains(" finished: 20/20 done (sent 20, accepted 20, skipped 0, failed 0, in flight 0, resent after a crash 0)"), "\(last)")
        let id = try #require(last.split(separator: " ").dropFirst().first.map(String.init))
        #expect(try await CampaignHarness.perToken(mock).values.reduce(0, +) == 20)

        // The same key again: the same campaign, nothing sent.
        let again = try await Self.campaign(server, ["create", file.path, "--idempotency-key", "cli-key-1", "--json"])
        #expect(again.status == 0)
        #expect(try RichPushJSONValue.parse(Data(again.stdout.utf8))["campaign_id"]?.stringValue == id)
        #expect(try await CampaignHarness.perToken(mock).values.reduce(0, +) == 20)
        // The same key with another campaign: refused, and the message speaks of campaigns.
        let other = server.directory.appendingPathComponent("other.json")
        try Data(try CampaignHarness.json(["audience": ["tokens": tokens], "title": "Another", "push_id": "cli-2"]).utf8).write(to: other)
        let reused = try await Self.campaign(server, ["create", other.path, "--idempotency-key", "cli-key-1"])
        #expect(reused.status == 1)
        #expect(reused.stderr.contains("(idempotency_key_reused)"), "\(reused.stderr)")
        #expect(reused.stderr.contains("use a new key for a new campaign (a UUID per campaign)"), "\(reused.stderr)")

        let status = try await Self.campaign(server, ["status", id])
        #expect(status.status == 0)
        #expect(status.stdout.hasPrefix("campaign \(id) finished: 20/20 done"))
        let cancel = try await Self.campaign(server, ["cancel", id])
        #expect(cancel.status == 1)
        #expect(cancel.stderr.contains("not_cancellable"), "\(cancel.stderr)")
        let unknown = try await Self.campaign(server, ["status", "00000000-0000-0000-0000-000000000000"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("unknown_campaign"))
        let bad = try await Self.campaign(server, ["status", "../etc/passwd"])
        #expect(bad.status == 64)
        // An unknown subcommand is named as such, whatever follows it (it was "takes exactly one argument").
        for arguments in [["frob"], ["frob", id]] {
            let unknownCommand = try await Self.campaign(server, arguments)
            #expect(unknownCommand.status == 64)
            #expect(
                unknownCommand.stderr.contains("unknown subcommand 'frob': use create FILE|-, status CAMPAIGN_ID or cancel CAMPAIGN_ID"),
                "\(unknownCommand.stderr)")
        }
        let missing = try await Self.campaign(server, ["create", server.directory.appendingPathComponent("none.json").path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot read the campaign body"))
        #expect(await server.terminate() == 0)
    }

    @Test("a refusal: the server's message whole on standard error, and with --json its error object on standard output")
    func refusalWholeAndInJSON() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        // A variant with an unknown field of 64 bytes: the message names it and lists the fields
        // a variant may set (it was cut at 300 characters, mid-word, before).
        let unknown = String(repeating: "x", count: 60) + "_end"
        let body = try CampaignHarness.json([
            "audience": ["tokens": CampaignHarness.tokens(2, prefix: "cr")], "title": "T", "push_id": "cli-refused",
            "variants": [["title": "A", unknown: 1], ["title": "B"]],
        ])
        let direct = try await CampaignHarness.create(server, json: body)
        #expect(direct.status == 400)
        let error = try #require(try RichPushJSONValue.parse(direct.body)["error"])
        let message = try #require(error["message"]?.stringValue)
        let code = try #require(error["code"]?.stringValue)
        #expect(message.contains(unknown) && message.hasSuffix("weight"), "\(message)")
        let file = server.directory.appendingPathComponent("refused.json")
        try Data(body.utf8).write(to: file)

        let plain = try await Self.campaign(server, ["create", file.path])
        #expect(plain.status == 1)
        #expect(plain.stdout.isEmpty)
        #expect(plain.stderr.contains("(\(code)): \(message)"), "\(plain.stderr)")

        let json = try await Self.campaign(server, ["create", file.path, "--json"])
        #expect(json.status == 1)
        let printed = try RichPushJSONValue.parse(Data(json.stdout.utf8))
        #expect(printed["status"]?.integerLiteralValue == 400)
        #expect(printed["error"] == error, "\(json.stdout)")
        #expect(json.stderr.contains(message))
        // Nothing was created, through either.
        #expect(try await CampaignHarness.perToken(mock).isEmpty)
        #expect(await server.terminate() == 0)
    }
}
