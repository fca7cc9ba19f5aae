/// The stable codes of `richpush doctor`'s findings (docs/doctor.md lists them; scripts match on them).
public struct DoctorCode: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// The code as written in output and JSON (`nse_not_embedded`).
    public let rawValue: String
    /// The usual severity of a finding with this code.
    public let severity: DoctorFinding.Severity

    /// A code from elsewhere (the payload lint's), as an error unless a finding says otherwise.
    /// - Parameter rawValue: the code.
    public init(rawValue: String) {
        self.init(rawValue, .error)
    }

    init(_ rawValue: String, _ severity: DoctorFinding.Severity) {
        self.rawValue = rawValue
        self.severity = severity
    }

    public var description: String { rawValue }

    public static func == (lhs: DoctorCode, rhs: DoctorCode) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    // MARK: The project
    /// No `.xcodeproj` at the path (an XcodeGen / Tuist project that was never generated, or none).
    public static let projectNotFound = DoctorCode("project_not_found", .error)
    /// `project.pbxproj` (or an Info.plist / entitlements file) is malformed: file and line.
    public static let projectUnreadable = DoctorCode("project_unreadable", .error)
    /// Several projects were found; one was checked.
    public static let severalProjects = DoctorCode("several_projects", .info)
    /// A file a target names (Info.plist, entitlements, xcconfig, sources) is not on disk.
    public static let fileMissing = DoctorCode("file_missing", .warning)
    /// A build setting a check needs cannot be resolved (said, not guessed).
    public static let settingUnresolved = DoctorCode("setting_unresolved", .warning)
    /// An app with no notification service extension.
    public static let nseMissing = DoctorCode("nse_missing", .error)
    /// The extension is not in the app's "Embed Foundation Extensions" phase, or the app has no
    /// target dependency on it.
    public static let nseNotEmbedded = DoctorCode("nse_not_embedded", .error)
    /// The embed phase runs only when installing (`runOnlyForDeploymentPostprocessing = 1`).
    public static let nseCopyOnlyWhenInstalling = DoctorCode("nse_copy_only_when_installing", .error)
    /// `NSExtensionPointIdentifier` is not the notification service's (or content's).
    public static let nseWrongExtensionPoint = DoctorCode("nse_wrong_extension_point", .error)
    /// `NSExtensionPrincipalClass` is missing or names no class in the target's sources.
    public static let nsePrincipalClass = DoctorCode("nse_principal_class", .error)
    /// The extension's `IPHONEOS_DEPLOYMENT_TARGET` is above the app's.
    public static let nseDeploymentTargetAboveApp = DoctorCode("nse_deployment_target_above_app", .error)
    /// The extension's bundle id does not start with the app's and a dot.
    public static let nseBundleIDPrefix = DoctorCode("nse_bundle_id_prefix", .error)
    /// The app and the service extension do not list the same App Group.
    public static let appGroupMismatch = DoctorCode("app_group_mismatch", .error)
    /// The app's entitlements lack `aps-environment` (the Push Notifications capability).
    public static let apsEnvironmentMissing = DoctorCode("aps_environment_missing", .error)
    /// The payload's `http://` media is blocked by App Transport Security in the extension.
    public static let atsBlocksMedia = DoctorCode("ats_blocks_media", .error)
    /// The service extension does not link the RichPush product.
    public static let richPushNotLinked = DoctorCode("richpush_not_linked", .info)
    /// The app embeds a notification content extension (and the categories it handles).
    public static let contentExtensionPresent = DoctorCode("content_extension_present", .info)
    /// The app has no notification content extension (media shows as a thumbnail only).
    public static let contentExtensionAbsent = DoctorCode("content_extension_absent", .info)

    // MARK: Capabilities (what the pushes use)
    /// Pushes sent `time-sensitive`, and the app lacks `com.apple.developer.usernotifications.time-sensitive`.
    public static let timeSensitiveEntitlementMissing = DoctorCode("time_sensitive_entitlement_missing", .error)
    /// Pushes sent `critical`, and the app lacks `com.apple.developer.usernotifications.critical-alerts`.
    public static let criticalAlertsEntitlementMissing = DoctorCode("critical_alerts_entitlement_missing", .error)
    /// A communication-notifications setup without the capability (`com.apple.developer.usernotifications.communication`).
    public static let communicationCapabilityMissing = DoctorCode("communication_capability_missing", .error)
    /// A communication-notifications setup whose app lacks `INSendMessageIntent` in `NSUserActivityTypes`.
    public static let communicationActivityTypeMissing = DoctorCode("communication_activity_type_missing", .error)
    /// A communication-notifications setup whose service extension lacks `IntentsSupported` ∋ `INSendMessageIntent`.
    public static let communicationIntentsSupportedMissing = DoctorCode("communication_intents_supported_missing", .warning)

    /// The capability codes, in the order of docs/doctor.md.
    public static let capabilityCodes: [DoctorCode] = [
        .timeSensitiveEntitlementMissing, .criticalAlertsEntitlementMissing, .communicationCapabilityMissing, .communicationActivityTypeMissing,
        .communicationIntentsSupportedMissing,
    ]

    // MARK: The media (`--probe`)
    /// The extension would not attach the payload's media: the probe's reason (`unsupported_format`, …).
    public static let mediaRefused = DoctorCode("media_refused", .error)
    /// The media would be attached, but its time to first byte or total time is a large share of
    /// the extension's 30 s (`MediaChecks.slowFirstByteMs`, `MediaChecks.slowTotalMs`).
    public static let mediaSlow = DoctorCode("media_slow", .warning)
    /// The extension would attach the media: type, size and times.
    public static let mediaOK = DoctorCode("media_ok", .info)

    /// The media probe's codes, in the order of docs/doctor.md.
    public static let mediaCodes: [DoctorCode] = [.mediaRefused, .mediaSlow, .mediaOK]

    /// Every project code, in the order of docs/doctor.md.
    public static let projectCodes: [DoctorCode] = [
        .projectNotFound, .projectUnreadable, .nseMissing, .nseNotEmbedded, .nseCopyOnlyWhenInstalling, .nseWrongExtensionPoint,
        .nsePrincipalClass, .nseDeploymentTargetAboveApp, .nseBundleIDPrefix, .appGroupMismatch, .apsEnvironmentMissing, .atsBlocksMedia,
        .fileMissing, .settingUnresolved, .severalProjects, .richPushNotLinked, .contentExtensionPresent, .contentExtensionAbsent,
    ]
}
