/// What `richpush doctor` learnt about one target: its kind, resolved settings, Info.plist,
/// entitlements, sources and where it is embedded.
public struct TargetFacts: Sendable {
    /// What a target is, for the checks.
    public enum Kind: String, Sendable, Hashable {
        /// An iOS app.
        case app
        /// A notification service extension (`com.apple.usernotifications.service`).
        case notificationService = "notification_service_extension"
        /// A notification content extension (`com.apple.usernotifications.content-extension`).
        case notificationContent = "notification_content_extension"
        /// Another app extension (widget, share, …).
        case appExtension = "app_extension"
        /// An app for another platform (macOS, watchOS, tvOS, visionOS): not checked.
        case otherPlatformApp = "other_platform_app"
        /// Anything else (framework, test bundle, …).
        case other
    }

    /// The target.
    public let target: NativeTarget
    /// Its kind.
    public var kind: Kind
    /// The configuration whose settings were read (`Release`), or `nil` when it has none.
    public var configuration: String?
    /// The resolved settings.
    public var settings: BuildSettings
    /// The bundle id (Info.plist `CFBundleIdentifier` expanded, or `PRODUCT_BUNDLE_IDENTIFIER`).
    public var bundleID: ResolvedSetting?
    /// `IPHONEOS_DEPLOYMENT_TARGET`.
    public var deploymentTarget: ResolvedSetting?
    /// The Info.plist path (`INFOPLIST_FILE`), if any.
    public var infoPlistPath: String?
    /// The Info.plist as Xcode builds it: the file's keys plus `INFOPLIST_KEY_*` when
    /// `GENERATE_INFOPLIST_FILE = YES`; values not yet expanded.
    public var infoPlist: [String: PlistValue]
    /// The entitlements path (`CODE_SIGN_ENTITLEMENTS`), if any.
    public var entitlementsPath: String?
    /// The entitlements, or `nil` when none were read.
    public var entitlements: [String: PlistValue]?
    /// The target's Swift / Objective-C source files that are on disk.
    public var sourceFiles: [String]
    /// How many source files the target names (on disk or not).
    public var sourceFilesNamed: Int
    /// Names of the Swift package products the target links.
    public var packageProducts: [String]
    /// The apps that embed it (through a `dstSubfolderSpec = 13` copy phase).
    public var embeddedIn: [String]
    /// Problems met while reading its files (missing, malformed).
    public var findings: [DoctorFinding]
    /// The project's files, through which its sources are read (`ProjectFiles`: only inside the
    /// project folder); `ProjectFiles.none` for facts made without a project.
    public var files: ProjectFiles = .none

    /// The text of one of its source files, read inside the project folder only.
    /// - Parameter file: a path from `sourceFiles`.
    /// - Returns: the UTF-8 text, or `nil` when it cannot be read.
    public func sourceText(_ file: String) -> String? { files.text(file) }

    /// `NSExtension.NSExtensionPointIdentifier`, unexpanded.
    public var extensionPoint: String? { infoPlist["NSExtension"]?["NSExtensionPointIdentifier"]?.string }
    /// `NSExtension.NSExtensionPrincipalClass`, unexpanded.
    public var principalClass: String? { infoPlist["NSExtension"]?["NSExtensionPrincipalClass"]?.string }
    /// `NSExtension.NSExtensionAttributes.UNNotificationExtensionCategory` (a string or a list).
    public var contentCategories: [String] {
        infoPlist["NSExtension"]?["NSExtensionAttributes"]?["UNNotificationExtensionCategory"]?.strings ?? []
    }
    /// The App Groups of its entitlements, expanded with its settings (unresolved ones as written).
    public var appGroups: [String] {
        (entitlements?["com.apple.security.application-groups"]?.strings ?? []).map { settings.expand($0).value ?? $0 }
    }
    /// RichPush's App Group (`RichPush.AppGroupIdentifier` of the Info.plist), expanded.
    public var richPushAppGroup: String? {
        infoPlist["RichPush"]?["AppGroupIdentifier"]?.string.map { settings.expand($0).value ?? $0 }
    }
    /// Whether it links a RichPush product (`RichPushNotificationService` or `RichPushExtension`).
    public var linksRichPush: Bool {
        packageProducts.contains { $0 == "RichPushNotificationService" || $0 == "RichPushExtension" }
    }
    /// The kind in words, for messages.
    public var kindDescription: String {
        switch kind {
        case .app: return "app"
        case .notificationService: return "notification service extension"
        case .notificationContent: return "notification content extension"
        case .appExtension: return "app extension"
        case .otherPlatformApp: return "app (not iOS)"
        case .other: return "target"
        }
    }
}
