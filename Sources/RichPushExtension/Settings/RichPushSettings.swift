import Foundation

/// The bridge's settings, read from the `RichPush` dictionary of the extension's Info.plist.
///
/// Every key is optional; a missing key keeps the pipeline's default. A wrong value (wrong type,
/// not a URL, a deadline outside 1…29 s, an unknown key) is never fatal: it is listed in
/// `problems` with what to write instead, logged, and the default is used.
///
/// ```xml
/// <key>RichPush</key>
/// <dict>
///     <key>ReceiptsURL</key>                <string>https://stats.example.com/v1/receipts</string>
///     <key>MediaKeyPaths</key>              <array><string>data.picture</string></array>   <!-- tried before the defaults -->
///     <key>MediaKeyPathsReplace</key>       <false/>                                       <!-- true: only yours -->
///     <key>PushIDKeyPaths</key>             <array><string>data.id</string></array>        <!-- tried before the defaults -->
///     <key>PushIDKeyPathsReplace</key>      <false/>
///     <key>SenderKeyPaths</key>             <array><string>data.from</string></array>      <!-- tried before "sender" -->
///     <key>ConversationKeyPaths</key>       <array><string>data.chat</string></array>      <!-- tried before "conversation" -->
///     <key>CommunicationNotifications</key> <true/>                                        <!-- false: never an INSendMessageIntent -->
///     <key>DefaultBody</key>                <string>すぐに確認</string>                   <!-- none unless set -->
///     <key>MediaCategoryIdentifiers</key>   <dict><key>image</key><string>image</string>
///                                                 <key>video</key><string>video</string>
///                                                 <key>audio</key><string>audio</string></dict>
///     <key>ButtonCategorySlots</key>        <integer>4</integer>
///     <key>AdditionalAttachmentTypes</key>  <array><string>com.apple.quicktime-movie</string></array>
///     <key>Deadline</key>                   <real>25</real>
///     <key>AllowedHTTPHosts</key>           <array><string>media.example.com</string></array>
///     <key>AppGroupIdentifier</key>         <string>group.com.example.app</string>
///     <key>RecipientReceipts</key>          <false/>                                       <!-- true: receipts name the device -->
/// </dict>
/// ```
public struct RichPushSettings: Sendable {
    /// The Info.plist key of the dictionary.
    public static let infoDictionaryKey = "RichPush"

    /// Every key the dictionary may hold.
    public static let knownKeys: [String] = [
        "ReceiptsURL", "MediaKeyPaths", "MediaKeyPathsReplace", "PushIDKeyPaths", "PushIDKeyPathsReplace", "DefaultBody",
        "MediaCategoryIdentifiers", "MediaCategoryIdentifier", "ButtonCategorySlots", "AdditionalAttachmentTypes", "Deadline",
        "AllowedHTTPHosts", "AppGroupIdentifier", "SenderKeyPaths", "SenderKeyPathsReplace", "ConversationKeyPaths",
        "ConversationKeyPathsReplace", "CommunicationNotifications", "RecipientReceipts",
    ]

    /// The longest `Deadline` accepted, in seconds: below Apple's ~30 s budget, leaving time to deliver.
    public static let maximumDeadline = 29.0
    /// The most `ButtonCategorySlots` accepted (our bound: a content extension lists each slot of
    /// each media category in its `UNNotificationExtensionCategory`).
    public static let maximumButtonCategorySlots = 16

    /// The pipeline configuration the settings describe.
    public var pipeline: RichPushConfiguration
    /// The App Group shared with the app (`AppGroupIdentifier`), `nil` when not set.
    public var appGroupIdentifier: String?
    /// What was wrong in the dictionary, one sentence each (empty when all was well).
    public var problems: [String]

    /// Reads the settings from an Info.plist dictionary.
    ///
    /// - Parameter infoDictionary: the whole Info.plist (e.g. `Bundle.main.infoDictionary`);
    ///   `nil` or no `RichPush` key gives the defaults.
    /// - Returns: the settings, with `problems` listing every value that was ignored.
    public static func read(infoDictionary: [String: Any]?) -> RichPushSettings {
        var settings = RichPushSettings(pipeline: RichPushConfiguration(), appGroupIdentifier: nil, problems: [])
        guard let raw = infoDictionary?[infoDictionaryKey] else { return settings }
        guard let dictionary = raw as? [String: Any] else {
            settings.problems.append("Info.plist \(infoDictionaryKey) must be a dictionary (it is \(type(of: raw))); using the defaults")
            return settings
        }
        settings.apply(dictionary)
        return settings
    }

    /// Reads the settings from an Info.plist file (XML or binary), as `read(infoDictionary:)`
    /// reads them on iOS: `richpush simulate --settings` and the app use this, so they cannot drift.
    ///
    /// - Parameter file: the extension's Info.plist.
    /// - Returns: the settings, with `problems` listing every value that was ignored.
    /// - Throws: `RichPushError` `configuration` when the file is not a property list dictionary;
    ///   the file's read error when it cannot be read.
    public static func read(contentsOf file: URL) throws -> RichPushSettings {
        let data = try Data(contentsOf: file)
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw RichPushError(
                code: .configuration, message: "\(file.path) is not a property list (\(error.localizedDescription)); give the extension's Info.plist")
        }
        guard let dictionary = plist as? [String: Any] else {
            throw RichPushError(code: .configuration, message: "\(file.path) is a property list but not a dictionary; give the extension's Info.plist")
        }
        return read(infoDictionary: dictionary)
    }

    /// Apple's extension point identifier of a Notification Service Extension.
    public static let serviceExtensionPointIdentifier = "com.apple.usernotifications.service"

    /// The settings of the Notification Service Extension embedded in an app: the app reads the
    /// receipts URL, App Group and push id key paths from the same Info.plist as the extension.
    ///
    /// - Parameter app: the app's bundle (`Bundle.main` in the app).
    /// - Returns: the settings of the first `PlugIns/*.appex` whose `NSExtensionPointIdentifier` is
    ///   `com.apple.usernotifications.service`, or `nil` when the app embeds none.
    public static func serviceExtension(in app: Bundle) -> RichPushSettings? {
        guard let plugIns = app.builtInPlugInsURL,
            let items = try? FileManager.default.contentsOfDirectory(at: plugIns, includingPropertiesForKeys: nil)
        else { return nil }
        for appex in items.sorted(by: { $0.path < $1.path }) where appex.pathExtension == "appex" {
            guard let info = Bundle(url: appex)?.infoDictionary,
                (info["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String == serviceExtensionPointIdentifier
            else { continue }
            return read(infoDictionary: info)
        }
        return nil
    }

    private mutating func apply(_ d: [String: Any]) {
        for key in d.keys.sorted() where !Self.knownKeys.contains(key) {
            problems.append("RichPush.\(key) is not a known key (known: \(Self.knownKeys.joined(separator: ", "))); ignored")
        }
        if let value = d["ReceiptsURL"] {
            if let s = value as? String, let url = URL(string: s.trimmingCharacters(in: .whitespaces)),
                let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil
            {
                pipeline.receiptsURL = url
            } else {
                problems.append("RichPush.ReceiptsURL must be an http(s) URL string such as https://stats.example.com/v1/receipts; no receipts will be sent")
            }
        }
        pipeline.mediaKeyPaths = keyPaths(d, "MediaKeyPaths", defaults: pipeline.mediaKeyPaths)
        pipeline.pushIDKeyPaths = keyPaths(d, "PushIDKeyPaths", defaults: pipeline.pushIDKeyPaths)
        pipeline.senderKeyPaths = keyPaths(d, "SenderKeyPaths", defaults: pipeline.senderKeyPaths)
        pipeline.conversationKeyPaths = keyPaths(d, "ConversationKeyPaths", defaults: pipeline.conversationKeyPaths)
        if let value = d["CommunicationNotifications"] {
            if let flag = Self.boolean(value) {
                pipeline.communicationNotifications = flag
            } else {
                problems.append(
                    "RichPush.CommunicationNotifications must be a Boolean (<false/> to show a message's sender as a normal notification); using true")
            }
        }
        if let value = d["DefaultBody"] {
            if let s = value as? String {
                pipeline.defaultBody = s.isEmpty ? nil : s
            } else {
                problems.append("RichPush.DefaultBody must be a string such as \"すぐに確認\" (empty for none); no default body")
            }
        }
        if let value = d["MediaCategoryIdentifier"] {
            if let s = value as? String {
                pipeline.mediaCategoryIdentifiers = s.isEmpty ? [:] : Dictionary(uniqueKeysWithValues: RichPushMediaKind.allCases.map { ($0, s) })
            } else {
                problems.append("RichPush.MediaCategoryIdentifier must be a string (one category for every kind; empty for none); using image, video, audio")
            }
        }
        if let value = d["MediaCategoryIdentifiers"] {
            if let map = value as? [String: Any], map.keys.allSatisfy({ RichPushMediaKind(rawValue: $0) != nil }), map.values.allSatisfy({ $0 is String }) {
                for (key, category) in map {
                    guard let kind = RichPushMediaKind(rawValue: key), let category = category as? String else { continue }
                    pipeline.mediaCategoryIdentifiers[kind] = category.isEmpty ? nil : category
                }
            } else {
                problems.append(
                    "RichPush.MediaCategoryIdentifiers must be a dictionary from image, video, audio to category identifiers (empty for none); using image, video, audio"
                )
            }
        }
        if let value = d["ButtonCategorySlots"] {
            if let n = Self.number(value), n == n.rounded(), n >= 0, n <= Double(Self.maximumButtonCategorySlots) {
                pipeline.buttonCategorySlots = Int(n)
            } else {
                problems.append(
                    "RichPush.ButtonCategorySlots must be an integer from 0 to \(Self.maximumButtonCategorySlots); using \(pipeline.buttonCategorySlots)")
            }
        }
        if let value = d["AdditionalAttachmentTypes"] {
            let optIn = RichPushMediaFormat.optInAttachmentFormats
            let identifiers = value as? [String] ?? []
            let formats = identifiers.compactMap(RichPushMediaFormat.forUniformTypeIdentifier).filter(optIn.contains)
            if value is [String], formats.count == identifiers.count {
                pipeline.additionalAttachmentFormats = Set(formats)
            } else {
                problems.append(
                    "RichPush.AdditionalAttachmentTypes must be an array of these UTType identifiers outside Apple's table: \(optIn.map(\.uniformTypeIdentifier).joined(separator: ", ")); only Apple's table is attached"
                )
            }
        }
        if let value = d["Deadline"] {
            if let n = Self.number(value), n.isFinite, n >= 1, n <= Self.maximumDeadline {
                pipeline.deadline = n
            } else {
                problems.append(
                    "RichPush.Deadline must be a number of seconds from 1 to \(Int(Self.maximumDeadline)) (Apple gives the extension about 30 s); using \(pipeline.deadline)"
                )
            }
        }
        if let value = d["AllowedHTTPHosts"] {
            if let hosts = value as? [Any], let strings = hosts as? [String], strings.allSatisfy({ !$0.isEmpty }) {
                pipeline.allowedHTTPHosts = Set(strings.map { $0.lowercased() })
            } else {
                problems.append(
                    "RichPush.AllowedHTTPHosts must be an array of host names (each also needs an NSAppTransportSecurity exception); http:// media stays refused"
                )
            }
        }
        if let value = d["RecipientReceipts"] {
            if let flag = value as? Bool {
                pipeline.recipientReceipts = flag
            } else {
                problems.append(
                    "RichPush.RecipientReceipts must be a boolean (true: receipts name the device, with the credential the app saved from POST /v1/devices); receipts stay anonymous"
                )
            }
        }
        if let value = d["AppGroupIdentifier"] {
            if let s = value as? String, s.hasPrefix("group."), s.count > "group.".count {
                appGroupIdentifier = s
            } else {
                problems.append("RichPush.AppGroupIdentifier must be an App Group id starting with \"group.\" (Signing & Capabilities → App Groups); ignored")
            }
        }
    }

    /// A key path list: the dictionary's paths first, then the defaults it does not repeat, or
    /// only its paths when `<key>Replace` is true.
    private mutating func keyPaths(_ d: [String: Any], _ key: String, defaults: [RichPushPayloadKeyPath]) -> [RichPushPayloadKeyPath] {
        var replace = false
        if let flag = d[key + "Replace"] {
            if let b = Self.boolean(flag) {
                replace = b
            } else {
                problems.append("RichPush.\(key)Replace must be a Boolean (<true/> to use only \(key)); adding to the defaults")
            }
        }
        guard let value = d[key] else {
            if replace { problems.append("RichPush.\(key)Replace is true but \(key) is missing; using the defaults") }
            return defaults
        }
        guard let array = value as? [Any], let strings = array as? [String], !strings.isEmpty,
            strings.allSatisfy({ !RichPushPayloadKeyPath($0).components.isEmpty })
        else {
            problems.append("RichPush.\(key) must be a non-empty array of dotted key paths such as \"aps.alert.image\"; using the defaults")
            return defaults
        }
        let paths = strings.map { RichPushPayloadKeyPath($0) }
        if replace { return paths }
        return paths + defaults.filter { !paths.contains($0) }
    }

    /// A Boolean from a plist value: `<true/>`/`<false/>` only.
    private static func boolean(_ value: Any) -> Bool? {
        if let b = value as? Bool, type(of: value) == Bool.self { return b }
        if let n = value as? NSNumber {
            #if canImport(Darwin)
            if CFGetTypeID(n) == CFBooleanGetTypeID() { return n.boolValue }
            #else
            if n === NSNumber(value: true) { return true }
            if n === NSNumber(value: false) { return false }
            #endif
        }
        return nil
    }

    /// A number of seconds from a plist value: `<real>`/`<integer>`, never `<true/>`/`<false/>`.
    private static func number(_ value: Any) -> Double? {
        if type(of: value) == Bool.self { return nil }
        if let n = value as? NSNumber {
            #if canImport(Darwin)
            if CFGetTypeID(n) == CFBooleanGetTypeID() { return nil }
            #else
            if n === NSNumber(value: true) || n === NSNumber(value: false) { return nil }
            #endif
            return n.doubleValue
        }
        return nil
    }
}
