import Foundation
import RichPushCore
import RichPushProvider
import Testing

/// `LiveActivityLinter` and `LiveActivityPayload`: what is refused before an ActivityKit push
/// leaves (each finding naming its field) and what passes.
///
/// Sources: Apple, "Starting and updating Live Activities with ActivityKit push notifications"
/// (start needs attributes-type, attributes, alert; timestamp, stale-date, dismissal-date in
/// seconds since 1970; the default JSON decoding strategies; priority 5 or 10); "Displaying live
/// data with Live Activities" (static and dynamic data ≤ 4 KB); "Sending broadcast push
/// notification requests to APNs" (≤ 5,120 bytes; a broadcast cannot start an activity);
/// "Sending channel management requests to APNs" (policy 0 takes apns-expiration 0).
@Suite struct LiveActivityLinterTests {
    /// 2026-12-03T12:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_796_385_600)
    static let shape = ActivityShape(
        attributesType: "DeliveryAttributes",
        attributes: .object(["orderID": .string]),
        contentState: .object(["eta": .date, "status": .enumeration([.string("preparing"), .string("on-the-way")]), "courier": .optional(.string)]))

    static func payload(_ aps: [String: RichPushJSONValue], custom: [String: RichPushJSONValue] = [:]) -> Data {
        var root = custom
        root["aps"] = .object(aps)
        return RichPushJSONValue.object(root).jsonData(sortedKeys: true)
    }

    static var stamp: RichPushJSONValue { .int(Int(now.timeIntervalSince1970)) }
    static var goodState: RichPushJSONValue { .object(["eta": LiveActivityPayload.appDate(now.addingTimeInterval(900)), "status": .string("preparing")]) }
    static var goodStart: [String: RichPushJSONValue] {
        [
            "event": .string("start"), "timestamp": stamp, "content-state": goodState, "attributes-type": .string("DeliveryAttributes"),
            "attributes": .object(["orderID": .string("A-17")]), "alert": .object(["title": .string("Order"), "body": .string("On its way soon")]),
        ]
    }

    static func device(_ priority: Int? = 10) -> LiveActivityLinter {
        var linter = LiveActivityLinter(destination: .device(priority: priority), shapes: [shape], now: now)
        linter.activityAttributesType = "DeliveryAttributes"
        return linter
    }

    static func channel(_ policy: APNsMessageStoragePolicy?, expiration: Int = 0) -> LiveActivityLinter {
        var linter = LiveActivityLinter(destination: .broadcast(policy: policy, expiration: expiration, priority: 10), shapes: [shape], now: now)
        linter.activityAttributesType = "DeliveryAttributes"
        return linter
    }

    /// Seeded bad payloads: each is refused, with an error naming the field.
    @Test(arguments: 0..<12) func aBadPayloadIsRefusedNamingTheField(_ index: Int) throws {
        var start = Self.goodStart
        var update: [String: RichPushJSONValue] = ["event": .string("update"), "timestamp": Self.stamp, "content-state": Self.goodState]
        let cases: [(name: String, linter: LiveActivityLinter, data: Data, field: String?, code: RichPushLintFinding.Code)] = [
            {
                start["attributes-type"] = nil
                return ("start without attributes-type", Self.device(), Self.payload(start), "aps.attributes-type", .liveActivityAttributesTypeMissing)
            }(),
            {
                start = Self.goodStart
                start["attributes"] = nil
                return ("start without attributes", Self.device(), Self.payload(start), "aps.attributes", .liveActivityAttributesMissing)
            }(),
            {
                start = Self.goodStart
                start["alert"] = nil
                return ("start without alert", Self.device(), Self.payload(start), "aps.alert", .liveActivityAlertMissing)
            }(),
            {
                update["content-state"] = .object(["eta": .string("2026-12-03T12:15:00Z"), "status": .string("preparing")])
                return ("ISO date in content-state", Self.device(), Self.payload(update), "aps.content-state.eta", .shapeDateString)
            }(),
            {
                update["content-state"] = .object(["eta": .int(Int(Self.now.timeIntervalSince1970) + 900), "status": .string("preparing")])
                return ("1970-based date in content-state", Self.device(), Self.payload(update), "aps.content-state.eta", .shapeDateUnixSeconds)
            }(),
            {
                update = ["event": .string("update"), "content-state": Self.goodState, "timestamp": .string("2026-12-03T12:00:00Z")]
                return ("ISO timestamp", Self.device(), Self.payload(update), "aps.timestamp", .liveActivityDate)
            }(),
            {
                update = ["event": .string("update"), "content-state": Self.goodState, "timestamp": Self.stamp]
                update["stale-date"] = .double(Self.now.addingTimeInterval(600).timeIntervalSinceReferenceDate)
                return ("2001-based stale-date", Self.device(), Self.payload(update), "aps.stale-date", .liveActivityDate)
            }(),
            {
                var state = Self.goodState.objectValue ?? [:]
                state["courier"] = .string(String(repeating: "c", count: 4_100))
                update = ["event": .string("update"), "content-state": .object(state), "timestamp": Self.stamp]
                return ("over 4 KB of data", Self.device(), Self.payload(update), "aps.content-state", .liveActivityDataTooLarge)
            }(),
            {
                update = ["event": .string("update"), "content-state": Self.goodState, "timestamp": Self.stamp]
                let padded = Self.payload(update, custom: ["padding": .string(String(repeating: "p", count: 5_200))])
                return ("over 5,120 bytes on a channel", Self.channel(.mostRecentMessageStored), padded, nil, .payloadTooLarge)
            }(),
            (
                "non-zero expiration on a policy-0 channel", Self.channel(.noMessageStored, expiration: 1_796_389_200),
                Self.payload(["event": .string("update"), "content-state": Self.goodState, "timestamp": Self.stamp]), "apns-expiration",
                .expirationOnUnstoredChannel
            ),
            ("a start on a channel", Self.channel(.noMessageStored), Self.payload(Self.goodStart), "aps.event", .liveActivityBroadcastStart),
            {
                update = [
                    "event": .string("update"), "content-state": .object(["eta": LiveActivityPayload.appDate(Self.now), "status": .string("delivered")]),
                    "timestamp": Self.stamp,
                ]
                update["input-push-token"] = .int(1)
                return (
                    "input-push-token on an update, an enum case the app lacks", Self.device(), Self.payload(update), "aps.input-push-token",
                    .liveActivityInputPush
                )
            }(),
        ]
        let c = cases[index]
        let errors = c.linter.lint(c.data).filter { $0.severity == .error }
        let match = errors.first { $0.code == c.code }
        #expect(match != nil, "\(c.name): \(errors)")
        #expect(match?.keyPath == c.field, "\(c.name)")
        if c.field == nil {
            #expect(match?.message.contains("5120 bytes") == true, "\(c.name): \(match?.message ?? "")")
        }
        if index == 4 {
            // The message says what to send instead: the same moment counted from 2001.
            let expected = Int(Self.now.timeIntervalSinceReferenceDate) + 900
            #expect(match?.message.contains("send \(expected)") == true, "\(match?.message ?? "")")
        }
    }

    /// Valid payloads pass without an error.
    @Test(arguments: 0..<10) func aValidPayloadPasses(_ index: Int) {
        let update: [String: RichPushJSONValue] = ["event": .string("update"), "timestamp": Self.stamp, "content-state": Self.goodState]
        var tokenStart = Self.goodStart
        tokenStart["input-push-token"] = .int(1)
        var channelStart = Self.goodStart
        channelStart["input-push-channel"] = .string(Data(repeating: 7, count: 16).base64EncodedString())
        var end: [String: RichPushJSONValue] = ["event": .string("end"), "timestamp": Self.stamp, "content-state": Self.goodState]
        end["dismissal-date"] = .int(Int(Self.now.timeIntervalSince1970) + 3600)
        var stale = update
        stale["stale-date"] = .int(Int(Self.now.timeIntervalSince1970) + 1800)
        stale["relevance-score"] = .int(100)
        var alerting = update
        alerting["alert"] = .object(["title": .string("Nearly there"), "body": .string("2 minutes away"), "sound": .string("default")])
        var withCourier = Self.goodState.objectValue ?? [:]
        withCourier["courier"] = .string("Sam")
        let cases: [(LiveActivityLinter, Data)] = [
            (Self.device(), Self.payload(Self.goodStart)),
            (Self.device(), Self.payload(tokenStart)),
            (Self.device(), Self.payload(channelStart)),
            (Self.device(5), Self.payload(update)),
            (Self.device(nil), Self.payload(end)),
            (Self.device(), Self.payload(stale)),
            (Self.channel(.noMessageStored), Self.payload(alerting)),
            (Self.channel(.mostRecentMessageStored, expiration: 1_796_389_200), Self.payload(update)),
            (Self.channel(nil), Self.payload(["event": .string("update"), "timestamp": Self.stamp, "content-state": .object(withCourier)])),
            (Self.device(), Self.payload(update, custom: ["order": .string("A-17")])),
        ]
        var linter = cases[index].0
        if index >= 3 { linter.activityAttributesType = "DeliveryAttributes" }
        let errors = linter.lint(cases[index].1).filter { $0.severity == .error }
        #expect(errors.isEmpty, "case \(index): \(errors)")
    }

    @Test func theBuilderWritesApplesKeysAndDates() throws {
        let when = Self.now
        var p = LiveActivityPayload(event: .end, contentState: .object(["eta": LiveActivityPayload.appDate(when)]), timestamp: when)
        p.staleDate = when.addingTimeInterval(60)
        p.dismissalDate = when.addingTimeInterval(120)
        p.relevanceScore = 50
        p.inputPushChannel = nil
        let aps = try #require(try RichPushJSONValue.parse(p.jsonData())["aps"])
        #expect(aps["event"] == .string("end"))
        #expect(aps["timestamp"] == .int(1_796_385_600))
        #expect(aps["stale-date"] == .int(1_796_385_660))
        #expect(aps["dismissal-date"] == .int(1_796_385_720))
        #expect(aps["relevance-score"]?.doubleValue == 50)
        // A Date in the content state counts from 2001, as the app's default JSONDecoder reads it.
        #expect(aps["content-state"]?["eta"]?.doubleValue == when.timeIntervalSinceReferenceDate)
        #expect(aps["input-push-channel"] == nil && aps["input-push-token"] == nil)

        struct State: Encodable { var eta: Date }
        let encoded = try LiveActivityPayload.encodeContentState(State(eta: when))
        #expect(encoded["eta"]?.doubleValue == when.timeIntervalSinceReferenceDate)

        var start = LiveActivityPayload(event: .start, contentState: .object([:]))
        start.inputPushToken = true
        start.alert = LiveActivityAlert(title: "A", body: "B")
        let startAPS = try #require(try RichPushJSONValue.parse(start.jsonData())["aps"])
        #expect(startAPS["input-push-token"] == .int(1))
        #expect(start.alert == LiveActivityAlert(title: "A", body: "B"))
    }

    @Test func aShapeDescriptionIsReadBackAndItsMistakesNamed() throws {
        let text =
            #"{"attributes-type": "DeliveryAttributes", "attributes": {"orderID": "string"}, "content-state": {"eta": "date", "status": {"$enum": ["preparing", "on-the-way"]}, "courier": "string?", "stops": ["int"]}}"#
        let shape = try ActivityShape.parse(Data(text.utf8))
        #expect(shape.attributesType == "DeliveryAttributes")
        #expect(try ActivityShape.parse(shape.jsonValue) == shape)
        let wrong = #"{"attributes-type": "D", "content-state": {"eta": "datetime"}}"#
        let error = #expect(throws: RichPushError.self) { try ActivityShape.parse(Data(wrong.utf8)) }
        #expect(error?.message.contains("content-state.eta") == true)
        #expect(error?.message.contains("datetime") == true)
    }
}
