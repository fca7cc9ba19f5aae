import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `richpush lint --live-activity`, run as the built binary (issue 31).
@Suite struct LintLiveActivityCommandTests {
    func lint(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess(Fixtures.richpushBinary.path, ["lint"] + arguments).run(timeout: 60)
    }

    func write(_ text: String, _ name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func aStartWithoutAlertAndA1970DateAreNamedAndAGoodUpdatePasses() async throws {
        let directory = try Fixtures.temporaryDirectory("lint-live-activity")
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Int(Date().timeIntervalSince1970)
        let shape = try write(
            #"{"attributes-type": "DeliveryAttributes", "attributes": {"orderID": "string"}, "content-state": {"eta": "date", "courier": "string?"}}"#,
            "shape.json", in: directory)
        let badStart = try write(
            #"{"aps": {"event": "start", "timestamp": \#(now), "attributes-type": "DeliveryAttributes", "attributes": {"orderID": "A-17"}, "content-state": {"eta": \#(now + 900)}}}"#,
            "start.json", in: directory)
        let run = try await lint([badStart, "--live-activity", "--shape", shape])
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("error live_activity_alert_missing aps.alert: ") }, "\(run.stdout)")
        let expected = now + 900 - 978_307_200
        #expect(lines.contains { $0.hasPrefix("error shape_date_unix_seconds aps.content-state.eta: ") && $0.contains("send \(expected)") }, "\(run.stdout)")

        let goodUpdate = try write(
            #"{"aps": {"event": "update", "timestamp": \#(now), "content-state": {"eta": \#(now + 900 - 978_307_200), "courier": "Sam"}}}"#,
            "update.json", in: directory)
        let ok = try await lint([goodUpdate, "--live-activity", "--shape", shape, "--attributes-type", "DeliveryAttributes", "--priority", "5"])
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        #expect(ok.stdout.isEmpty)
        #expect(ok.stderr.contains("ok, no findings (") && ok.stderr.contains(" of 4096 bytes)"), "\(ok.stderr)")

        // On a policy-0 channel an expiration is refused, naming apns-expiration; --json keeps the key.
        let channel = try await lint([goodUpdate, "--live-activity", "--channel-policy", "0", "--expiration", "\(now + 60)", "--json"])
        #expect(channel.status == 1)
        let finding = try RichPushJSONValue.parse(Data(channel.stdout.split(separator: "\n").first.map(String.init)?.utf8 ?? "".utf8))
        #expect(finding["code"] == .string("expiration_on_unstored_channel"))
        #expect(finding["key"] == .string("apns-expiration"))

        // Options of --live-activity without it are a usage error.
        let usage = try await lint([goodUpdate, "--shape", shape])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("'--shape' needs '--live-activity'"), "\(usage.stderr)")
    }
}
