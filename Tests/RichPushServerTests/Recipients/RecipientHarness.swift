import Foundation
import RichPushCore
import RichPushExtension
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// What the recipients tests share: a server in process on either store, devices registered in
/// batches with their credentials, a recorded send, receipts that name their device (signed with
/// the extension's own `RichPushReceiptDeviceReference`).
struct RecipientHarness {
    let server: InProcessServer
    let fixture: StoreFixture

    /// A server on a fresh store of `backend`.
    static func make(_ backend: StoreBackend, configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> RecipientHarness {
        let fixture = try await StoreFixture.make(backend)
        let location = fixture.dbArgument
        let store: any ReceiptStore & StatisticsStore =
            switch backend {
            case .sqlite: try SQLiteStore(path: location)
            case .postgres: try PostgresStore(url: location, log: { _ in })
            }
        return RecipientHarness(server: try InProcessServer(store: store, configure: configure), fixture: fixture)
    }

    /// One registered device.
    struct Device {
        var token: String
        var userID: String?
        var deviceID: String
        var secret: String
        var reference: RichPushReceiptDeviceReference { RichPushReceiptDeviceReference(deviceID: deviceID, secret: secret) }
    }

    /// Registers `tokens` (user `u<i>` each, unless `users` is false) with `POST /v1/devices/batch`,
    /// 5,000 a request.
    func register(_ tokens: [String], users: Bool = true, recipientReceipts: Bool = true) async throws -> [Device] {
        var out: [Device] = []
        for start in stride(from: 0, to: tokens.count, by: 5_000) {
            let slice = Array(tokens[start..<min(tokens.count, start + 5_000)])
            let items: [[String: Any]] = slice.enumerated().map { offset, token in
                var item: [String: Any] = ["token": token, "platform": "ios", "recipient_receipts": recipientReceipts]
                if users { item["user_id"] = "u\(start + offset)" }
                return item
            }
            let r = try await server.client().postJSON("/v1/devices/batch", try CampaignHarness.json(["devices": items]), headers: server.admin)
            guard r.status == 200 else { throw TestSupportError("POST /v1/devices/batch: \(r.status) \(r.text.prefix(300))") }
            let results = try r.json()["results"] as? [[String: Any]] ?? []
            for (offset, result) in results.enumerated() {
                guard let id = result["device_id"] as? String, let secret = result["device_secret"] as? String else {
                    throw TestSupportError("no credential in \(result)")
                }
                out.append(Device(token: slice[offset], userID: users ? "u\(start + offset)" : nil, deviceID: id, secret: secret))
            }
        }
        return out
    }

    /// Records a send of `push` to `tokens`, all accepted (`POST /v1/pushes/{push}/sends`, 2,500 a
    /// batch: one batch is one PostgreSQL statement, which the store's 2 s `statement_timeout`
    /// cancels; 10,000 at once crossed it on a 2-core machine under the whole suite's load).
    func recordSend(_ push: String, _ tokens: [String], outcome: String = "accepted") async throws {
        for (n, start) in stride(from: 0, to: tokens.count, by: 2_500).enumerated() {
            let results = tokens[start..<min(tokens.count, start + 2_500)].map { ["token": $0, "outcome": outcome] }
            let body = try CampaignHarness.json(["batch_id": "b\(n)", "source": "apns", "results": results])
            let r = try await server.client().postJSON("/v1/pushes/\(push)/sends", body, headers: server.admin)
            guard r.status == 200 else { throw TestSupportError("record send: \(r.status) \(r.text.prefix(300))") }
        }
    }

    /// A receipt of `push` (`event`), naming `device` when given, as the extension sends it: a
    /// form, its `receipt_id` stable per device.
    func receipt(_ push: String, event: RichPushReceipt.Event = .delivered, device: Device?, outcome: RichPushOutcome = .mediaAttached) async throws -> Int {
        var receipt = RichPushReceipt(pushID: push, event: event, receiptID: "r-" + UUID().uuidString.lowercased(), outcome: outcome)
        if let device { receipt = device.reference.stamp(receipt) }
        return try await server.client().post("/v1/receipts", form: receipt.formEncoded()).status
    }

    /// Every recipient of `push` in `state`, page by page (`limit` a page); the pages' count too.
    ///
    /// A page answered `503` is asked again (at most 3 times, 1 s apart), as the API's contract
    /// says a client should: on PostgreSQL a call outstanding 3 s has its socket cut
    /// (`PostgresDeadline`), which a 2-core CI machine under the whole suite's load once reached
    /// on a page of this 10,000-device push (a fresh-clone CI run here, 2026-12-06).
    func pages(_ push: String, _ state: String, limit: Int) async throws -> (ids: [String], pages: Int, rows: [[String: Any]]) {
        var ids: [String] = []
        var rows: [[String: Any]] = []
        var after: String?
        var pages = 0
        repeat {
            let query = "state=\(state)&limit=\(limit)" + (after.map { "&after=\($0)" } ?? "")
            var r = try await server.client().request("GET", "/v1/pushes/\(push)/recipients?\(query)", headers: server.admin)
            for _ in 0..<3 where r.status == 503 {
                try await Task.sleep(for: .seconds(1))
                r = try await server.client().request("GET", "/v1/pushes/\(push)/recipients?\(query)", headers: server.admin)
            }
            guard r.status == 200 else { throw TestSupportError("recipients: \(r.status) \(r.text)") }
            let page = try r.json()
            let list = page["recipients"] as? [[String: Any]] ?? []
            rows += list
            ids += list.compactMap { $0["device_id"] as? String }
            after = page["next_after"] as? String
            pages += 1
        } while after != nil && pages < 100_000
        return (ids, pages, rows)
    }
}
