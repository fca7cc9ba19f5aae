import Foundation

/// Checks a push payload against Apple's rules and the mistakes seen in the wild, and fixes the
/// ones that have one right answer.
///
/// - Important: Apple: a payload is at most 4096 bytes (5120 bytes for VoIP pushes); the service
///   extension runs only for a visible alert whose `aps` has `"mutable-content": 1` (the integer);
///   a background push (`content-available` without an alert) never reaches the extension.
public struct RichPushPayloadLinter: Sendable {
    /// Apple: the largest payload for a regular remote notification, in bytes.
    public static let maximumPayloadBytes = 4096
    /// Apple: the largest payload for a VoIP notification, in bytes.
    public static let maximumVoIPPayloadBytes = 5120

    /// Where media URLs are looked for (default: `RichPushPayloadKeyPath.defaultMediaKeyPaths`).
    public var mediaKeyPaths: [RichPushPayloadKeyPath]
    /// Where the push id is looked for (default: `RichPushPayloadKeyPath.defaultPushIDKeyPaths`).
    public var pushIDKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultPushIDKeyPaths
    /// Where a message's sender is looked for (default: `RichPushPayloadKeyPath.defaultSenderKeyPaths`).
    public var senderKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultSenderKeyPaths
    /// Where a message's conversation is looked for (default: `RichPushPayloadKeyPath.defaultConversationKeyPaths`).
    public var conversationKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultConversationKeyPaths
    /// Apply the VoIP size limit (5120 bytes) instead of 4096.
    public var voip: Bool
    /// Hosts (lower case) whose cleartext `http://` media and avatars are warnings, not errors
    /// (`insecure_media_url`, `insecure_avatar_url`): the extension allows them
    /// (`RichPushConfiguration.allowedHTTPHosts`, Info.plist `RichPush` → `AllowedHTTPHosts`) and
    /// its App Transport Security has an exception for them. Default: none.
    public var allowedHTTPHosts: Set<String> = []
    /// Also warn when the RichPush extension would find no media URL (`no_media_url`) or no push
    /// id (`no_push_id`) in the payload as iOS delivers it (default off; `richpush lint` turns
    /// it on; senders leave it off, a text-only push is not a mistake for them).
    public var checksExtensionLookup = false

    /// Makes a linter.
    /// - Parameters:
    ///   - mediaKeyPaths: where media URLs are looked for.
    ///   - voip: use the VoIP size limit.
    public init(mediaKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultMediaKeyPaths, voip: Bool = false) {
        self.mediaKeyPaths = mediaKeyPaths
        self.voip = voip
    }

    /// What the extension would take from the payload as iOS delivers it (an FCM legacy
    /// `{notification, data}` payload is read as `fix(_:)` turns it into APNs form).
    /// - Parameter payload: the payload root.
    /// - Returns: the media, push id and vendor found along this linter's key paths.
    public func extensionLookup(_ payload: RichPushJSONValue) -> RichPushExtensionLookup {
        let delivered = payload["notification"]?.objectValue != nil ? fix(payload) : payload
        let id = RichPushPayloadLookup.pushID(in: delivered, keyPaths: pushIDKeyPaths)
        return RichPushExtensionLookup(
            vendor: RichPushVendor.recognise(delivered), media: RichPushPayloadLookup.media(in: delivered, keyPaths: mediaKeyPaths),
            pushIDKeyPath: id?.path, pushID: id?.value,
            message: RichPushMessage.read(from: delivered, senderKeyPaths: senderKeyPaths, conversationKeyPaths: conversationKeyPaths).message)
    }

    /// Whether `url`'s host is one of `allowedHTTPHosts`.
    private func allowsCleartext(_ url: URL?) -> Bool {
        guard let host = url?.host?.lowercased(), !host.isEmpty else { return false }
        return allowedHTTPHosts.contains(host)
    }

    /// The warning for cleartext http to a host in `allowedHTTPHosts`.
    /// - Parameters:
    ///   - code: `insecure_media_url` or `insecure_avatar_url`.
    ///   - subject: what is fetched, with its URL ("the avatar http://…").
    ///   - path: the key path.
    /// - Returns: the finding.
    private static func allowedCleartext(_ code: RichPushLintFinding.Code, _ subject: String, at path: String) -> RichPushLintFinding {
        RichPushLintFinding(
            .warning, code, at: path,
            "\(subject) is cleartext http, allowed for this host (AllowedHTTPHosts and an App Transport Security exception); anyone on the way can read or replace it: serve it over https"
        )
    }

    /// The size limit in force, in bytes.
    public var sizeLimit: Int { voip ? Self.maximumVoIPPayloadBytes : Self.maximumPayloadBytes }

    /// Lints payload bytes (what would be sent).
    ///
    /// The bytes must be strict RFC 8259 JSON (`RichPushJSONValue.validateStrictly`): a trailing comma,
    /// a duplicate key, a comment or `NaN` is an `invalid_payload` error naming line and column.
    /// - Parameter data: UTF-8 JSON.
    /// - Returns: the findings, errors first; empty when the payload is good.
    public func lint(_ data: Data) -> [RichPushLintFinding] {
        do {
            return lint(try RichPushJSONValue.parseStrictly(data))
        } catch let error as RichPushError {
            return [RichPushLintFinding(.error, .invalidPayload, at: nil, error.message)]
        } catch {
            return [RichPushLintFinding(.error, .invalidPayload, at: nil, "not valid JSON: \(error)")]
        }
    }

    /// Lints a parsed payload. Its size is measured as compact JSON, as RichPush sends it.
    ///
    /// - Parameter payload: the payload root.
    /// - Returns: the findings, errors first.
    public func lint(_ payload: RichPushJSONValue) -> [RichPushLintFinding] {
        guard case .object(let root) = payload else {
            return [RichPushLintFinding(.error, .invalidPayload, at: nil, "the payload is not a JSON object; it must look like {\"aps\": {…}}")]
        }
        var findings: [RichPushLintFinding] = []
        let size = payload.jsonData(sortedKeys: false).count
        if size > sizeLimit {
            findings.append(
                RichPushLintFinding(
                    .error, .payloadTooLarge, at: nil,
                    "the payload is \(size) bytes; APNs accepts at most \(sizeLimit) bytes\(voip ? " for VoIP" : "") (Apple's limit): shorten the text or custom keys, or send the media by URL"
                ))
        }

        if let notification = root["notification"]?.objectValue, notification["mutable_content"] != nil {
            findings.append(
                RichPushLintFinding(
                    .error, .fcmLegacyMutableContent, at: "notification.mutable_content",
                    "FCM legacy `notification.mutable_content` is not an APNs payload: APNs wants {\"aps\": {\"alert\": …, \"mutable-content\": 1}} (in FCM HTTP v1: apns.payload.aps)",
                    fixable: true
                ))
        }
        if root["mutable-content"] != nil {
            findings.append(
                RichPushLintFinding(
                    .error, .mutableContentOutsideAPS, at: "mutable-content",
                    "`mutable-content` is outside `aps`, where iOS ignores it; move it to aps[\"mutable-content\"] = 1",
                    fixable: true
                ))
        }
        if root["mutable_content"] != nil {
            findings.append(
                RichPushLintFinding(
                    .error, .mutableContentUnderscore, at: "mutable_content",
                    "`mutable_content` (underscore, outside `aps`) is not an APNs key; write aps[\"mutable-content\"] = 1",
                    fixable: true
                ))
        }

        let apsValue = root["aps"]
        let aps = apsValue?.objectValue
        if apsValue == nil, root["notification"] == nil {
            findings.append(
                RichPushLintFinding(.error, .missingAPS, at: "aps", "there is no `aps` dictionary; APNs payloads look like {\"aps\": {\"alert\": …}}"))
        } else if case .string(let text)? = apsValue {
            findings.append(
                RichPushLintFinding(
                    .error, .wrongType, at: "aps",
                    "`aps` is the string \"\(text)\", it must be a dictionary; the fix makes it {\"alert\": \"\(text)\"}",
                    fixable: true
                ))
        } else if let apsValue, aps == nil {
            findings.append(
                RichPushLintFinding(.error, .wrongType, at: "aps", "`aps` is \(Self.kind(apsValue)), it must be a dictionary; this has no automatic fix"))
        }
        let apsMap = aps ?? [:]
        if apsMap["mutable_content"] != nil {
            findings.append(
                RichPushLintFinding(
                    .error, .mutableContentUnderscore, at: "aps.mutable_content",
                    "`mutable_content` (underscore) is not an APNs key; write \"mutable-content\": 1 (hyphen, integer)",
                    fixable: true
                ))
        }
        let mutable = apsMap["mutable-content"]
        switch mutable {
        case .string(let s)?:
            findings.append(
                RichPushLintFinding(
                    .error, .mutableContentString, at: "aps.mutable-content",
                    "`mutable-content` is the string \"\(s)\"; iOS honours only the integer 1 (as in article 001's \"1\" mistake)",
                    fixable: true
                ))
        case .bool(let b)?:
            findings.append(
                RichPushLintFinding(
                    .error, .mutableContentBool, at: "aps.mutable-content",
                    "`mutable-content` is the boolean \(b); iOS honours only the integer 1",
                    fixable: true
                ))
        default:
            break
        }
        let isMutable = mutable == .int(1)

        // Alert and background.
        let alert = apsMap["alert"]
        let alertVisible: Bool
        switch alert {
        case .string(let s)?: alertVisible = !s.isEmpty
        case .object(let o)?:
            alertVisible = ["title", "subtitle", "body", "title-loc-key", "subtitle-loc-key", "loc-key"].contains {
                !(o[$0]?.stringValue ?? "").isEmpty
            }
        case nil: alertVisible = false
        case let other?:
            alertVisible = false
            findings.append(
                RichPushLintFinding(.error, .wrongType, at: "aps.alert", "`alert` is \(Self.kind(other)); it must be a string or a dictionary with title/body"))
        }
        let legacyAlertVisible =
            root["notification"]?.objectValue.map { n in
                ["title", "body"].contains { !(n[$0]?.stringValue ?? "").isEmpty }
            } ?? false
        let isBackground = apsMap["content-available"] != nil && !alertVisible

        // Media.
        let media = Self.mediaURLs(in: payload, at: mediaKeyPaths)
        if !media.isEmpty {
            let first = media[0].path
            if isBackground {
                findings.append(
                    RichPushLintFinding(
                        .error, .backgroundPushWithMedia, at: "aps.content-available",
                        "a background push (content-available, no alert) names media at `\(first)`, but it never reaches the notification service extension; add a visible alert and \"mutable-content\": 1, or drop the media"
                    ))
            } else if !alertVisible && !legacyAlertVisible {
                findings.append(
                    RichPushLintFinding(
                        .error, .mediaWithoutAlert, at: "aps.alert",
                        "media is named at `\(first)` but there is no visible alert (title, subtitle or body); the extension runs only for visible alerts"
                    ))
            }
            let spelledWrong = findings.contains {
                [.mutableContentString, .mutableContentBool, .mutableContentUnderscore, .mutableContentOutsideAPS, .fcmLegacyMutableContent].contains($0.code)
            }
            if !isMutable && !spelledWrong && !isBackground {
                findings.append(
                    RichPushLintFinding(
                        .error, .mutableContentMissing, at: "aps.mutable-content",
                        "media is named at `\(first)` but aps has no \"mutable-content\": 1, so the notification service extension never runs",
                        fixable: true
                    ))
            }
            for (path, url) in media {
                let parsed = URL(string: url)
                let scheme = parsed?.scheme?.lowercased()
                if scheme == "http" && allowsCleartext(parsed) {
                    findings.append(Self.allowedCleartext(.insecureMediaURL, "the media URL \(url)", at: path.description))
                } else if scheme == "http" {
                    findings.append(
                        RichPushLintFinding(
                            .error, .insecureMediaURL, at: path.description,
                            "the media URL \(url) is cleartext http; App Transport Security blocks it in the extension: serve it over https"
                        ))
                } else if scheme != "https" || (parsed?.host ?? "").isEmpty {
                    findings.append(
                        RichPushLintFinding(
                            .error, .badMediaURL, at: path.description,
                            "the media value \"\(url)\" is not an https URL with a host"
                        ))
                }
            }
        }

        // A message from a person (communication notifications).
        findings += messageFindings(payload, isMutable: isMutable, isBackground: isBackground, mediaNamed: !media.isEmpty)

        // Types and ranges Apple documents.
        if let badge = apsMap["badge"], badge.integerLiteralValue == nil {
            findings.append(
                RichPushLintFinding(.warning, .wrongType, at: "aps.badge", "`badge` is \(Self.kind(badge)); it must be an integer (0 clears the badge)"))
        }
        if let level = apsMap["interruption-level"] {
            if let s = level.stringValue {
                if !RichPushInterruptionLevel.documented.map(\.rawValue).contains(s) {
                    let meant = Self.closest(to: s, among: RichPushInterruptionLevel.documented.map(\.rawValue)).map { " (did you mean \"\($0)\"?)" } ?? ""
                    findings.append(
                        RichPushLintFinding(
                            .warning, .unknownInterruptionLevel, at: "aps.interruption-level",
                            "`interruption-level` \"\(s)\" is not one Apple documents (passive, active, time-sensitive, critical)\(meant); iOS shows it as active"
                        ))
                }
            } else {
                findings.append(
                    RichPushLintFinding(.warning, .wrongType, at: "aps.interruption-level", "`interruption-level` is \(Self.kind(level)); it must be a string"))
            }
        }
        if apsMap["interruption-level"]?.stringValue == RichPushInterruptionLevel.critical.rawValue {
            let sound = apsMap["sound"]
            if sound?.objectValue == nil {
                findings.append(
                    RichPushLintFinding(
                        .warning, .criticalWithoutSoundDictionary, at: "aps.sound",
                        "`interruption-level` is critical but `sound` is \(sound.map(Self.kind) ?? "missing"): a critical alert plays its sound through the mute switch and Focus only from a dictionary {\"critical\": 1, \"name\": \"default\", \"volume\": 1.0} (Apple, and the critical-alerts entitlement)"
                    ))
            } else if sound?["critical"]?.integerLiteralValue != 1 {
                findings.append(
                    RichPushLintFinding(
                        .warning, .criticalWithoutSoundDictionary, at: "aps.sound.critical",
                        "`interruption-level` is critical but the `sound` dictionary has no \"critical\": 1, so the sound is not a critical one; add it"))
            }
        }
        if let volume = apsMap["sound"]?["volume"], volume.doubleValue.map({ !(0...1).contains($0) }) ?? true {
            findings.append(
                RichPushLintFinding(
                    .warning, .soundVolumeRange, at: "aps.sound.volume",
                    "`volume` is \(Self.kind(volume)); it must be a number from 0 (silent) to 1 (full volume), Apple's range for a critical alert's sound"))
        }
        for key in apsMap.keys.sorted() where !Self.apsKeys.contains(key) && key != "mutable_content" {
            let meant = Self.closest(to: key, among: Self.apsKeys.sorted()).map { "did you mean `\($0)`? " } ?? ""
            findings.append(
                RichPushLintFinding(
                    .warning, .unknownAPSKey, at: "aps." + key,
                    "`\(key)` is not a key Apple defines in aps, so iOS ignores it: \(meant)an app's own keys go outside aps, at the payload's top level"))
        }
        if let score = apsMap["relevance-score"] {
            if score.doubleValue.map({ !(0...1).contains($0) }) ?? true {
                findings.append(
                    RichPushLintFinding(
                        .warning, .relevanceScoreRange, at: "aps.relevance-score",
                        "`relevance-score` is \(Self.kind(score)); it must be a number from 0 to 1 (Apple), or iOS ignores it when it sorts the summary"))
            }
        }
        if checksExtensionLookup { findings += lookupFindings(payload) }
        return findings.filter { $0.severity == .error } + findings.filter { $0.severity != .error }
    }

    /// The keys Apple defines in `aps` (*Generating a remote notification*, ActivityKit's Live
    /// Activity keys, Safari's `url-args`).
    static let apsKeys: Set<String> = [
        "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content", "target-content-id",
        "interruption-level", "relevance-score", "filter-criteria", "stale-date", "content-state", "timestamp", "event",
        "dismissal-date", "attributes-type", "attributes", "input-push-token", "input-push-channel", "url-args",
    ]

    /// The candidate `text` was probably meant as: the same letters without case, `-`, `_` or
    /// spaces, or else at most 2 edits away (Levenshtein); `nil` when none is that close.
    static func closest(to text: String, among candidates: [String]) -> String? {
        func letters(_ s: String) -> [Character] { Array(s.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " }) }
        let wanted = letters(text)
        guard !wanted.isEmpty, wanted.count <= 64 else { return nil }
        if let same = candidates.first(where: { letters($0) == wanted }) { return same }
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(wanted, letters(candidate))
            if distance <= 2, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// The Levenshtein distance between two short strings.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The message's `sender` and `conversation` (`RichPushMessage`'s rules), the avatars' schemes,
    /// and the `mutable-content` the extension needs to show it.
    private func messageFindings(_ payload: RichPushJSONValue, isMutable: Bool, isBackground: Bool, mediaNamed: Bool) -> [RichPushLintFinding] {
        let reading = RichPushMessage.read(from: payload, senderKeyPaths: senderKeyPaths, conversationKeyPaths: conversationKeyPaths)
        var findings: [RichPushLintFinding] = reading.problems.map { problem in
            let code: RichPushLintFinding.Code =
                conversationKeyPaths.contains(where: { problem.keyPath.hasPrefix($0.description) }) ? .invalidConversation : .invalidSender
            let outcome = problem.isError ? "; the notification is shown as a normal one (the extension reports intent_failed)" : ""
            return RichPushLintFinding(problem.isError ? .error : .warning, code, at: problem.keyPath, problem.message + outcome)
        }
        guard let message = reading.message else { return findings }
        let senderPath = reading.senderKeyPath?.description ?? "sender"
        var avatars = [(senderPath + ".avatar", message.sender.avatar)]
        if message.conversation.isGroup { avatars.append(("conversation.avatar", message.conversation.avatar)) }
        for case (let path, let url?) in avatars {
            let parsed = URL(string: url)
            guard parsed?.scheme?.lowercased() == "http" else { continue }
            guard !allowsCleartext(parsed) else {
                findings.append(Self.allowedCleartext(.insecureAvatarURL, "the avatar \(url)", at: path))
                continue
            }
            findings.append(
                RichPushLintFinding(
                    .error, .insecureAvatarURL, at: path,
                    "the avatar \(url) is cleartext http; App Transport Security blocks it in the extension (avatar_failed): serve it over https"))
        }
        if isBackground {
            findings.append(
                RichPushLintFinding(
                    .error, .backgroundPushWithMedia, at: "aps.content-available",
                    "a background push (content-available, no alert) names a sender at `\(senderPath)`, but it never reaches the notification service extension; add a visible alert and \"mutable-content\": 1"
                ))
        } else if !isMutable && !mediaNamed {
            findings.append(
                RichPushLintFinding(
                    .error, .mutableContentMissing, at: "aps.mutable-content",
                    "a sender is named at `\(senderPath)` but aps has no \"mutable-content\": 1, so the extension never runs and iOS shows no communication notification",
                    fixable: true))
        }
        return findings
    }

    /// `no_media_url` and `no_push_id` warnings, naming the key paths tried and the vendor.
    private func lookupFindings(_ payload: RichPushJSONValue) -> [RichPushLintFinding] {
        let lookup = extensionLookup(payload)
        var findings: [RichPushLintFinding] = []
        let vendor = lookup.vendor.map { v in
            "recognised a \(v.name) payload (\(v.markers.filter { $0.lookup(in: payload) != nil }.map(\.description).joined(separator: ", ")))"
        }
        // A message from a person needs no media: its avatar is what it shows.
        if lookup.media.urls.isEmpty && lookup.message == nil {
            var message = "the RichPush extension would find no media URL (looked at \(mediaKeyPaths.map(\.description).joined(separator: ", ")))"
            if !lookup.media.deepLinks.isEmpty {
                message += "; url \(lookup.media.deepLinks.joined(separator: ", ")) is a link, not media (media needs a file extension such as .jpg)"
            }
            if let v = lookup.vendor, let vendor {
                message += v.mediaKeyPaths.isEmpty ? "; \(vendor), whose media key RichPush does not know: \(v.note)" : "; \(vendor)"
            }
            findings.append(RichPushLintFinding(.warning, .noMediaURL, at: nil, message + "; the notification shows text only"))
        }
        if lookup.pushID == nil {
            let why = lookup.vendor?.missingIDExplanation.map { "; \($0)" } ?? "; add push_id, or name your key in PushIDKeyPaths"
            findings.append(
                RichPushLintFinding(
                    .warning, .noPushID, at: nil,
                    "the RichPush extension would find no push id (looked at \(pushIDKeyPaths.map(\.description).joined(separator: ", ")))"
                        + (vendor.map { "; \($0)" } ?? "") + why + "; no receipt would be sent"))
        }
        if lookup.vendor?.identifier == RichPushVendor.oneSignal.identifier, let path = lookup.pushIDKeyPath, let id = lookup.pushID,
            let other = otherPushID(in: payload, than: id, after: path)
        {
            findings.append(
                RichPushLintFinding(
                    .warning, .twoPushIDs, at: other.path.description,
                    "the payload carries two push ids: \(path) = \(id.prefix(64)), which the extension uses (receipts go to it), and \(other.path) = \(other.value.prefix(64)); "
                        + "record the send under \(id.prefix(64)) (or drop \(other.path)), or the push's figures split over two ids and its display rate reads 0 %"
                ))
        }
        return findings
    }

    /// In a OneSignal payload, where a push id other than the one the extension uses sits: a
    /// later key path of `pushIDKeyPaths`, or a `push_id` in OneSignal's data
    /// (`custom.a.push_id`, where OneSignal puts the notification's `data`), holding another value.
    private func otherPushID(in payload: RichPushJSONValue, than id: String, after used: RichPushPayloadKeyPath) -> (
        path: RichPushPayloadKeyPath, value: String
    )? {
        var candidates = pushIDKeyPaths.drop(while: { $0 != used }).dropFirst().map { $0 }
        let data: RichPushPayloadKeyPath = "custom.a.push_id"
        if !candidates.contains(data), data != used { candidates.append(data) }
        let differing = candidates.filter { RichPushPayloadLookup.pushID(in: payload, keyPaths: [$0]).map { $0.value != id } ?? false }
        return RichPushPayloadLookup.pushID(in: payload, keyPaths: differing)
    }

    /// Rewrites the mistakes that have one right answer.
    ///
    /// Fixes: `mutable-content` as `"1"`/`true` → `1`; `mutable_content` → `mutable-content`; the
    /// flag outside `aps` moved in; FCM legacy `{notification, data}` turned into the APNs payload
    /// FCM delivers (`aps.alert` from `notification`, `data` keys at the top level); a missing
    /// `mutable-content` added when media is named; `aps` given as a string becomes
    /// `{"alert": string}`; a missing `mutable-content` added when a message's sender is named.
    /// User content is never dropped: an `aps` of another type is left as is.
    /// - Parameter payload: the payload root.
    /// - Returns: the fixed payload (unchanged when nothing is fixable).
    public func fix(_ payload: RichPushJSONValue) -> RichPushJSONValue {
        guard case .object(var root) = payload else { return payload }
        // `aps` of another type than a dictionary: a string becomes the alert text; anything
        // else is left exactly as it is (never dropped) and stays a finding.
        if case .string(let text)? = root["aps"] { root["aps"] = .object(["alert": .string(text)]) }
        if let apsValue = root["aps"], apsValue.objectValue == nil { return .object(root) }
        var aps = root["aps"]?.objectValue ?? [:]
        var setMutable = false

        if var notification = root["notification"]?.objectValue, notification["mutable_content"] != nil {
            notification["mutable_content"] = nil
            var alert = aps["alert"]?.objectValue ?? aps["alert"]?.stringValue.map { ["body": .string($0)] } ?? [:]
            for key in ["title", "body", "subtitle"] where alert[key] == nil {
                if let v = notification[key] { alert[key] = v }
                notification[key] = nil
            }
            if !alert.isEmpty { aps["alert"] = .object(alert) }
            for (apsKey, key) in [("sound", "sound"), ("badge", "badge"), ("category", "click_action")] where aps[apsKey] == nil {
                if let v = notification[key] { aps[apsKey] = v; notification[key] = nil }
            }
            root["notification"] = notification.isEmpty ? nil : .object(notification)
            if let data = root["data"]?.objectValue {
                for (k, v) in data where root[k] == nil { root[k] = v }
                root["data"] = nil
            }
            setMutable = true
        }
        if root["mutable-content"] != nil { root["mutable-content"] = nil; setMutable = true }
        if root["mutable_content"] != nil { root["mutable_content"] = nil; setMutable = true }
        if aps["mutable_content"] != nil { aps["mutable_content"] = nil; setMutable = true }
        switch aps["mutable-content"] {
        case .string?, .bool?: setMutable = true
        default: break
        }
        var fixed = root
        fixed["aps"] = .object(aps)
        let isBackground = aps["content-available"] != nil && aps["alert"] == nil
        if !Self.mediaURLs(in: .object(fixed), at: mediaKeyPaths).isEmpty && !isBackground { setMutable = true }
        if RichPushMessage.read(from: .object(fixed), senderKeyPaths: senderKeyPaths, conversationKeyPaths: conversationKeyPaths).message != nil,
            !isBackground
        {
            setMutable = true
        }
        if setMutable { aps["mutable-content"] = .int(1) }
        if !aps.isEmpty || root["aps"] != nil { root["aps"] = .object(aps) }
        return .object(root)
    }

    /// The media URLs named at `paths`, in order, with the path that named each.
    /// The media URLs named at `paths` (by `RichPushPayloadLookup`'s rules: strings, arrays, dictionaries
    /// of URLs; a `url` deep link is not media), in order, with the path that named each.
    static func mediaURLs(in payload: RichPushJSONValue, at paths: [RichPushPayloadKeyPath]) -> [(path: RichPushPayloadKeyPath, url: String)] {
        var out: [(RichPushPayloadKeyPath, String)] = []
        var seen = Set<String>()
        for path in paths where !seen.contains(path.description) {
            seen.insert(path.description)
            for url in RichPushPayloadLookup.media(in: payload, keyPaths: [path]).urls { out.append((path, url)) }
        }
        // FCM legacy: data["image-url"] and friends.
        if let data = payload["data"], case .object = data, payload["notification"] != nil || payload["aps"] == nil {
            for path in paths {
                for url in RichPushPayloadLookup.media(in: data, keyPaths: [path]).urls {
                    out.append((RichPushPayloadKeyPath("data." + path.description), url))
                }
            }
        }
        return out
    }

    static func kind(_ value: RichPushJSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return "the boolean \(b)"
        case .number(let n): return n.isIntegerLiteral ? "the integer \(n)" : "the number \(n)"
        case .string(let s): return "the string \"\(s)\""
        case .array: return "an array"
        case .object: return "a dictionary"
        }
    }
}
