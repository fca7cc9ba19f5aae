import Foundation
import RichPushExtension

/// The bridge's settings, read from the `RichPush` dictionary of the extension's Info.plist.
///
/// Every key is optional; a missing key keeps the pipeline's default. A wrong value (wrong type,
/// not a URL, a deadline outside 1…29 s, an unknown key) is never fatal: it is listed in
/// `problems` with what to write instead, logged, and the default is used.
///
/// ```xml
/// <key>RichPush</key>
/// <dict>
///     <key>ReceiptsURL</key>             <string>https://stats.example.com/v1/receipts</string>
///     <key>MediaKeyPaths</key>           <array><string>aps.alert.image</string><string>image-url</string></array>
///     <key>PushIDKeyPaths</key>          <array><string>aps.alert.push_id</string></array>
///     <key>DefaultBody</key>             <string>すぐに確認</string>
///     <key>MediaCategoryIdentifier</key> <string>image</string>
///     <key>Deadline</key>                <real>25</real>
///     <key>AllowedHTTPHosts</key>        <array><string>media.example.com</string></array>
///     <key>AppGroupIdentifier</key>      <string>group.com.example.app</string>
/// </dict>
/// ```
public struct RichPushSettings: Sendable {
    /// The Info.plist key of the dictionary.
    public static let infoDictionaryKey = "RichPush"

    /// Every key the dictionary may hold.
    public static let knownKeys: [String] = [
        "ReceiptsURL", "MediaKeyPaths", "PushIDKeyPaths", "DefaultBody", "MediaCategoryIdentifier", "Deadline",
        "AllowedHTTPHosts", "AppGroupIdentifier",
    ]

    /// The longest `Deadline` accepted, in seconds: below Apple's ~30 s budget, leaving time to deliver.
    public static let maximumDeadline = 29.0

    /// The pipeline configuration the settings describe.
    public var pipeline: PipelineConfiguration
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
        var settings = RichPushSettings(pipeline: PipelineConfiguration(), appGroupIdentifier: nil, problems: [])
        guard let raw = infoDictionary?[infoDictionaryKey] else { return settings }
        guard let dictionary = raw as? [String: Any] else {
            settings.problems.append("Info.plist \(infoDictionaryKey) must be a dictionary (it is \(type(of: raw))); using the defaults")
            return settings
        }
        settings.apply(dictionary)
        return settings
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
        if let paths = keyPaths(d, "MediaKeyPaths") { pipeline.mediaKeyPaths = paths }
        if let paths = keyPaths(d, "PushIDKeyPaths") { pipeline.pushIDKeyPaths = paths }
        if let value = d["DefaultBody"] {
            if let s = value as? String {
                pipeline.defaultBody = s.isEmpty ? nil : s
            } else {
                problems.append("RichPush.DefaultBody must be a string (empty to turn the rule off); using \"\(pipeline.defaultBody ?? "")\"")
            }
        }
        if let value = d["MediaCategoryIdentifier"] {
            if let s = value as? String {
                pipeline.mediaCategoryIdentifier = s.isEmpty ? nil : s
            } else {
                problems.append("RichPush.MediaCategoryIdentifier must be a string (empty to turn the rule off); using \"\(pipeline.mediaCategoryIdentifier ?? "")\"")
            }
        }
        if let value = d["Deadline"] {
            if let n = Self.number(value), n.isFinite, n >= 1, n <= Self.maximumDeadline {
                pipeline.deadline = n
            } else {
                problems.append("RichPush.Deadline must be a number of seconds from 1 to \(Int(Self.maximumDeadline)) (Apple gives the extension about 30 s); using \(pipeline.deadline)")
            }
        }
        if let value = d["AllowedHTTPHosts"] {
            if let hosts = value as? [Any], let strings = hosts as? [String], strings.allSatisfy({ !$0.isEmpty }) {
                pipeline.allowedHTTPHosts = Set(strings.map { $0.lowercased() })
            } else {
                problems.append("RichPush.AllowedHTTPHosts must be an array of host names (each also needs an NSAppTransportSecurity exception); http:// media stays refused")
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

    private mutating func keyPaths(_ d: [String: Any], _ key: String) -> [PayloadKeyPath]? {
        guard let value = d[key] else { return nil }
        guard let array = value as? [Any], let strings = array as? [String], !strings.isEmpty,
            strings.allSatisfy({ !PayloadKeyPath($0).components.isEmpty })
        else {
            problems.append("RichPush.\(key) must be a non-empty array of dotted key paths such as \"aps.alert.image\"; using the defaults")
            return nil
        }
        return strings.map { PayloadKeyPath($0) }
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
