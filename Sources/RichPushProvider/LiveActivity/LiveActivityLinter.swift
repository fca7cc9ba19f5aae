import Foundation
import RichPushCore

/// Checks an ActivityKit push notification before it leaves, against Apple's rules and what the
/// app can decode; every finding names the field (`aps.attributes-type`, `apns-expiration`).
///
/// APNs answers 200 to most of these mistakes and the activity simply does not change
/// (or does not start): that is why they are caught here.
///
/// - A start needs `attributes-type`, `attributes`, `alert` and `content-state` (Apple,
///   "Construct the payload that starts a Live Activity"); a broadcast cannot start one.
/// - `timestamp`, `stale-date`, `dismissal-date` are seconds since 1970 (numbers).
/// - `content-state` (and `attributes`) must decode as the app's types (`ActivityShape`): keys,
///   JSON types, enum cases, and `Date`s as seconds since 2001-01-01 (the default `JSONDecoder`:
///   an ISO string fails, 1970-based seconds land 31 years ahead, home-assistant/iOS#4677).
/// - Sizes: the payload ≤ 4096 bytes to a device, ≤ 5,120 bytes on a channel (Apple, "Sending
///   broadcast push notification requests to APNs"); static plus dynamic data ≤ 4 KB combined
///   (Apple, "Displaying live data with Live Activities").
/// - Headers: `apns-priority` 5 or 10 to a device (1 is allowed on a channel); a channel created
///   with No Message Stored takes only `apns-expiration: 0`.
public struct LiveActivityLinter: Sendable {
    /// Apple: static and dynamic data of a Live Activity together, at most 4 KB (4096 bytes).
    public static let maximumActivityDataBytes = 4096
    /// Apple: a broadcast payload is at most 5 KB (5,120 bytes).
    public static let maximumBroadcastPayloadBytes = 5120
    /// Apple: an ended activity stays on the Lock Screen at most four hours (seconds).
    public static let maximumDismissalDelay: TimeInterval = 4 * 3600

    /// Where the notification goes, with the headers that matter there.
    public enum Destination: Sendable, Hashable {
        /// `POST /3/device/<token>`: an update token or a push-to-start token.
        /// - Parameter priority: `apns-priority`, `nil` when not sent (APNs uses 10).
        case device(priority: Int?)
        /// `POST /4/broadcasts/apps/<bundle>`: a channel.
        /// - Parameters:
        ///   - policy: the channel's storage policy, when known.
        ///   - expiration: `apns-expiration` in seconds since 1970 (0: deliver once, store nothing).
        ///   - priority: `apns-priority` (10, 5 or 1).
        case broadcast(policy: APNsMessageStoragePolicy?, expiration: Int, priority: Int?)
    }

    /// Where the notification goes.
    public var destination: Destination
    /// The app's activity types by attributes type: a start is checked against the shape of its
    /// `attributes-type`, an update or end against `activityAttributesType`'s.
    public var shapes: [String: ActivityShape] = [:]
    /// The attributes type of the activity an update or end is for, when known.
    public var activityAttributesType: String?
    /// The activity's static data (its start's `attributes`), when known: counted with an
    /// update's `content-state` against the 4 KB.
    public var activityAttributes: RichPushJSONValue?
    /// The current time (dates are judged against it).
    public var now: Date

    /// Makes a linter.
    /// - Parameters:
    ///   - destination: device or channel, and the headers.
    ///   - shapes: the app's activity shapes (none: content is not checked against types).
    ///   - now: the current time.
    public init(destination: Destination, shapes: [ActivityShape] = [], now: Date = Date()) {
        self.destination = destination
        for shape in shapes { self.shapes[shape.attributesType] = shape }
        self.now = now
    }

    /// The payload size limit in force, in bytes.
    public var sizeLimit: Int {
        if case .broadcast = destination { return Self.maximumBroadcastPayloadBytes }
        return RichPushPayloadLinter.maximumPayloadBytes
    }

    /// Lints payload bytes (strict JSON: duplicate keys, comments, trailing commas are refused).
    /// - Parameter data: UTF-8 JSON.
    /// - Returns: the findings, errors first.
    public func lint(_ data: Data) -> [RichPushLintFinding] {
        do {
            return lint(try RichPushJSONValue.parseStrictly(data))
        } catch let error as RichPushError {
            return [RichPushLintFinding(.error, .invalidPayload, at: nil, error.message)]
        } catch {
            return [RichPushLintFinding(.error, .invalidPayload, at: nil, "not valid JSON: \(error)")]
        }
    }

    /// Lints a parsed payload.
    /// - Parameter payload: the payload root.
    /// - Returns: the findings, errors first.
    public func lint(_ payload: RichPushJSONValue) -> [RichPushLintFinding] {
        guard let root = payload.objectValue else {
            return [RichPushLintFinding(.error, .invalidPayload, at: nil, "the payload is not a JSON object; it must look like {\"aps\": {\"event\": …}}")]
        }
        var findings: [RichPushLintFinding] = []
        let size = payload.jsonData(sortedKeys: false).count
        let broadcast: Bool
        if case .broadcast = destination { broadcast = true } else { broadcast = false }
        if size > sizeLimit {
            findings.append(
                RichPushLintFinding(
                    .error, .payloadTooLarge, at: nil,
                    "the payload is \(size) bytes; APNs accepts at most \(sizeLimit) bytes \(broadcast ? "on a broadcast channel" : "to a device") (Apple): shorten the content state or the alert"
                ))
        }
        findings += headerFindings()
        guard let aps = root["aps"]?.objectValue else {
            findings.append(
                RichPushLintFinding(
                    .error, root["aps"] == nil ? .missingAPS : .wrongType, at: "aps",
                    "an ActivityKit push needs an `aps` dictionary with event, timestamp and content-state"))
            return ordered(findings)
        }

        // The event.
        var event: LiveActivityEvent?
        switch aps["event"] {
        case nil:
            findings.append(
                RichPushLintFinding(.error, .liveActivityEventMissing, at: "aps.event", "missing: set \"event\" to \"start\", \"update\" or \"end\" (Apple)"))
        case .string(let raw)?:
            event = LiveActivityEvent(rawValue: raw.value)
            if event == nil {
                findings.append(
                    RichPushLintFinding(
                        .error, .liveActivityEventUnknown, at: "aps.event",
                        "\"\(raw.value)\" is not an ActivityKit event; use \"start\", \"update\" or \"end\" (lower case)"))
            }
        case let other?:
            findings.append(
                RichPushLintFinding(.error, .wrongType, at: "aps.event", "\(ActivityShape.valueDescription(other)); it must be the string start, update or end")
            )
        }

        // The dates: seconds since 1970.
        if aps["timestamp"] == nil {
            findings.append(
                RichPushLintFinding(
                    .error, .liveActivityTimestampMissing, at: "aps.timestamp",
                    "missing: Apple: set it to the current time in seconds since 1970, so the system shows the most recent update (and drops older ones)"
                ))
        }
        for key in ["timestamp", "stale-date", "dismissal-date"] {
            if let value = aps[key] { findings += unixDateFindings(value, at: "aps." + key) }
        }
        if let dismissal = aps["dismissal-date"]?.doubleValue {
            if event != nil && event != .end {
                findings.append(
                    RichPushLintFinding(
                        .warning, .liveActivityDismissalDate, at: "aps.dismissal-date",
                        "only an end uses dismissal-date (when the ended activity leaves the Lock Screen); on \(event?.rawValue ?? "this event") it does nothing"
                    ))
            } else if Date(timeIntervalSince1970: dismissal).timeIntervalSince(now) > Self.maximumDismissalDelay + 60 {
                findings.append(
                    RichPushLintFinding(
                        .warning, .liveActivityDismissalDate, at: "aps.dismissal-date",
                        "\(ActivityShape.iso(Date(timeIntervalSince1970: dismissal))) is more than four hours away; Apple: the system removes an ended activity after at most four hours"
                    ))
            }
        }
        if let stale = aps["stale-date"]?.doubleValue, stale < 1e11, Date(timeIntervalSince1970: stale) < now, event != .end {
            findings.append(
                RichPushLintFinding(
                    .warning, .liveActivityStaleDate, at: "aps.stale-date",
                    "\(ActivityShape.iso(Date(timeIntervalSince1970: stale))) is already past: the activity shows as outdated at once"))
        }
        if let score = aps["relevance-score"], score.doubleValue == nil {
            findings.append(
                RichPushLintFinding(
                    .error, .wrongType, at: "aps.relevance-score",
                    "\(ActivityShape.valueDescription(score)); it must be a number (relative: higher shows first, e.g. 100 and 50)"))
        }
        if let alert = aps["alert"], alert.stringValue == nil, alert.objectValue == nil {
            findings.append(
                RichPushLintFinding(
                    .error, .wrongType, at: "aps.alert", "\(ActivityShape.valueDescription(alert)); it must be a dictionary {title, body, sound}"))
        }

        // What each event needs.
        let contentState = aps["content-state"]
        if let contentState, contentState.objectValue == nil {
            findings.append(
                RichPushLintFinding(
                    .error, .shapeWrongType, at: "aps.content-state",
                    "\(ActivityShape.valueDescription(contentState)); it must be an object matching the app's ContentState"))
        }
        switch event {
        case .start?:
            if broadcast {
                findings.append(
                    RichPushLintFinding(
                        .error, .liveActivityBroadcastStart, at: "aps.event",
                        "a broadcast cannot start a Live Activity (Apple): send the start to push-to-start tokens, with \"input-push-channel\" to have it listen on this channel"
                    ))
            }
            if aps["attributes-type"] == nil {
                findings.append(
                    RichPushLintFinding(
                        .error, .liveActivityAttributesTypeMissing, at: "aps.attributes-type",
                        "a start needs \"attributes-type\": the name of the app's ActivityAttributes type (Apple)"))
            } else if aps["attributes-type"]?.stringValue == nil {
                findings.append(RichPushLintFinding(.error, .wrongType, at: "aps.attributes-type", "it must be the type's name as a string"))
            }
            if aps["attributes"] == nil {
                findings.append(
                    RichPushLintFinding(
                        .error, .liveActivityAttributesMissing, at: "aps.attributes",
                        "a start needs \"attributes\": the activity's static data, matching the app's attributes type (Apple)"))
            } else if aps["attributes"]?.objectValue == nil {
                findings.append(RichPushLintFinding(.error, .shapeWrongType, at: "aps.attributes", "it must be an object matching the app's attributes type"))
            }
            if aps["alert"] == nil {
                findings.append(
                    RichPushLintFinding(
                        .error, .liveActivityAlertMissing, at: "aps.alert",
                        "a start needs an \"alert\" (Apple: so the person is told about the started activity)"))
            }
            if contentState == nil {
                findings.append(
                    RichPushLintFinding(
                        .error, .liveActivityContentStateMissing, at: "aps.content-state", "a start needs the initial \"content-state\""))
            }
        case .update?:
            if contentState == nil {
                findings.append(
                    RichPushLintFinding(
                        .error, .liveActivityContentStateMissing, at: "aps.content-state",
                        "an update needs \"content-state\": the new dynamic data, matching the app's ContentState"))
            }
        case .end?:
            if contentState == nil {
                findings.append(
                    RichPushLintFinding(
                        .warning, .liveActivityContentStateMissing, at: "aps.content-state",
                        "Apple: include the final content state when ending, so the activity shows the latest data after it ends"))
            }
        case nil:
            break
        }
        findings += inputPushFindings(aps, event: event, broadcast: broadcast)

        // Against the app's types.
        let startType = event == .start ? aps["attributes-type"]?.stringValue : nil
        let typeName = startType ?? activityAttributesType
        if let typeName, !shapes.isEmpty {
            if let shape = shapes[typeName] {
                if let contentState, contentState.objectValue != nil {
                    findings += ActivityShape.check(contentState, against: shape.contentState, at: "aps.content-state", now: now)
                }
                if event == .start, let attributesShape = shape.attributes, let attributes = aps["attributes"], attributes.objectValue != nil {
                    findings += ActivityShape.check(attributes, against: attributesShape, at: "aps.attributes", now: now)
                }
            } else {
                findings.append(
                    RichPushLintFinding(
                        .error, .attributesTypeMismatch, at: startType != nil ? "aps.attributes-type" : nil,
                        "\"\(typeName)\" is not an attributes type the app declares (\(shapes.keys.sorted().joined(separator: ", "))): iOS starts or updates nothing"
                    ))
            }
        }

        // Static + dynamic data: 4 KB.
        let attributes = event == .start ? aps["attributes"] : activityAttributes
        let dataBytes = (attributes?.jsonData(sortedKeys: false).count ?? 0) + (contentState?.jsonData(sortedKeys: false).count ?? 0)
        if dataBytes > Self.maximumActivityDataBytes {
            findings.append(
                RichPushLintFinding(
                    .error, .liveActivityDataTooLarge, at: "aps.content-state",
                    "static and dynamic data are \(dataBytes) bytes (attributes \(attributes?.jsonData(sortedKeys: false).count ?? 0) + content-state \(contentState?.jsonData(sortedKeys: false).count ?? 0)); Apple: at most 4 KB combined"
                ))
        }
        return ordered(findings)
    }

    /// `apns-priority` and `apns-expiration` for the destination.
    private func headerFindings() -> [RichPushLintFinding] {
        switch destination {
        case .device(let priority):
            if let priority, priority != 5 && priority != 10 {
                return [
                    RichPushLintFinding(
                        .error, .liveActivityPriority, at: "apns-priority",
                        "\(priority): an ActivityKit push to a device takes 5 or 10 (Apple); 5 does not count against the hourly budget")
                ]
            }
        case .broadcast(let policy, let expiration, let priority):
            var findings: [RichPushLintFinding] = []
            if let priority, ![1, 5, 10].contains(priority) {
                findings.append(RichPushLintFinding(.error, .liveActivityPriority, at: "apns-priority", "\(priority): a broadcast takes 10, 5 or 1 (Apple)"))
            }
            if policy == .noMessageStored, expiration != 0 {
                findings.append(
                    RichPushLintFinding(
                        .error, .expirationOnUnstoredChannel, at: "apns-expiration",
                        "\(expiration): the channel was created with message-storage-policy 0 (No Message Stored), which takes only apns-expiration 0; APNs would answer BadExpirationDate (Apple). Send 0, or use a channel with policy 1"
                    ))
            }
            if expiration < 0 {
                findings.append(RichPushLintFinding(.error, .wrongType, at: "apns-expiration", "\(expiration): a UNIX time in seconds, or 0"))
            }
            return findings
        }
        return []
    }

    /// `input-push-token` and `input-push-channel`: iOS 18, start only, one of them.
    private func inputPushFindings(_ aps: [String: RichPushJSONValue], event: LiveActivityEvent?, broadcast: Bool) -> [RichPushLintFinding] {
        var findings: [RichPushLintFinding] = []
        let token = aps["input-push-token"], channel = aps["input-push-channel"]
        if token != nil || channel != nil, let event, event != .start {
            findings.append(
                RichPushLintFinding(
                    .error, .liveActivityInputPush, at: token != nil ? "aps.input-push-token" : "aps.input-push-channel",
                    "only a start carries input-push-token / input-push-channel (iOS 18: how the started activity gets its updates)"))
        }
        if let token, token.integerLiteralValue != 1 {
            findings.append(
                RichPushLintFinding(
                    .error, .liveActivityInputPush, at: "aps.input-push-token", "\(token.compactText()): Apple writes it \"input-push-token\": 1"))
        }
        if let channel {
            if let id = channel.stringValue {
                if id.isEmpty || Data(base64Encoded: id) == nil {
                    findings.append(
                        RichPushLintFinding(
                            .error, .liveActivityInputPush, at: "aps.input-push-channel",
                            "\"\(id)\" is not a channel id (the base64 apns-channel-id APNs answered when the channel was created): the activity would not start"
                        ))
                }
            } else {
                findings.append(RichPushLintFinding(.error, .wrongType, at: "aps.input-push-channel", "it must be the channel id as a string"))
            }
        }
        if token != nil, channel != nil {
            findings.append(
                RichPushLintFinding(
                    .error, .liveActivityInputPush, at: "aps.input-push-channel",
                    "give input-push-token or input-push-channel, not both: an activity gets updates by token or on a channel"))
        }
        return findings
    }

    /// A date in `aps`: a number of seconds since 1970.
    private func unixDateFindings(_ value: RichPushJSONValue, at path: String) -> [RichPushLintFinding] {
        if let text = value.stringValue {
            return [
                RichPushLintFinding(
                    .error, .liveActivityDate, at: path,
                    "the string \"\(text)\": APNs and ActivityKit read \(path) as a number of seconds since 1970 (UNIX time), e.g. \(LiveActivityPayload.unixSeconds(now))"
                )
            ]
        }
        guard let seconds = value.doubleValue, seconds.isFinite else {
            return [
                RichPushLintFinding(.error, .liveActivityDate, at: path, "\(ActivityShape.valueDescription(value)); it must be seconds since 1970 (a number)")
            ]
        }
        if seconds >= 1e11 {
            return [
                RichPushLintFinding(
                    .error, .liveActivityDate, at: path,
                    "\(ActivityShape.jsonNumber(seconds)) looks like milliseconds; \(path) is seconds since 1970: send \(ActivityShape.jsonNumber((seconds / 1000).rounded(.down)))"
                )
            ]
        }
        let asUnix = Date(timeIntervalSince1970: seconds)
        let asReference = Date(timeIntervalSinceReferenceDate: seconds)
        if now.timeIntervalSince(asUnix) > ActivityShape.plausibleDateSpan, abs(asReference.timeIntervalSince(now)) <= ActivityShape.plausibleDateSpan {
            return [
                RichPushLintFinding(
                    .error, .liveActivityDate, at: path,
                    "\(ActivityShape.jsonNumber(seconds)) is \(ActivityShape.iso(asUnix)) as seconds since 1970, which \(path) is; it looks like seconds since 2001 (\(ActivityShape.iso(asReference))): send \(ActivityShape.jsonNumber(seconds + Date.timeIntervalBetween1970AndReferenceDate))"
                )
            ]
        }
        return []
    }

    private func ordered(_ findings: [RichPushLintFinding]) -> [RichPushLintFinding] {
        findings.filter { $0.severity == .error } + findings.filter { $0.severity != .error }
    }
}
