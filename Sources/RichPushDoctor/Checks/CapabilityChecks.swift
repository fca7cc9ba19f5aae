import Foundation
import RichPushCore

/// The capabilities what the pushes use needs (issue 30): the Time Sensitive and Critical Alerts
/// entitlements for those interruption levels, and for messages from people (communication
/// notifications) the Communication Notifications capability, `INSendMessageIntent` in the app's
/// `NSUserActivityTypes`, and `IntentsSupported` in the service extension.
enum CapabilityChecks {
    /// Apple: the Time Sensitive Notifications capability.
    static let timeSensitiveEntitlement = "com.apple.developer.usernotifications.time-sensitive"
    /// Apple: the Critical Alerts entitlement (granted by Apple on request).
    static let criticalAlertsEntitlement = "com.apple.developer.usernotifications.critical-alerts"
    /// Apple: the Communication Notifications capability.
    static let communicationEntitlement = "com.apple.developer.usernotifications.communication"
    /// The intent a message notification donates.
    static let messageIntent = "INSendMessageIntent"

    /// An app's interruption-level entitlements, against the levels its pushes use.
    /// - Parameters:
    ///   - app: the app.
    ///   - expectations: what the pushes use.
    /// - Returns: a finding per missing entitlement.
    static func checkInterruptionLevels(app: TargetFacts, expectations: DoctorExpectations) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        let name = app.target.name
        let file = app.entitlementsPath ?? "the app's entitlements (none: CODE_SIGN_ENTITLEMENTS is not set)"
        if expectations.interruptionLevels.contains(.timeSensitive), !has(app, timeSensitiveEntitlement) {
            findings.append(
                DoctorFinding(
                    .timeSensitiveEntitlementMissing, target: name,
                    "the pushes are sent with interruption-level time-sensitive, but \(file) lacks \(timeSensitiveEntitlement), so iOS delivers them as active: they never break through Focus or the scheduled summary",
                    fix: "\(name) → Signing & Capabilities → + Capability → Time Sensitive Notifications (adds \(timeSensitiveEntitlement) = YES)"))
        }
        if expectations.interruptionLevels.contains(.critical), !has(app, criticalAlertsEntitlement) {
            findings.append(
                DoctorFinding(
                    .criticalAlertsEntitlementMissing, target: name,
                    "the pushes are sent with interruption-level critical, but \(file) lacks \(criticalAlertsEntitlement), so iOS does not play them through the mute switch and Focus",
                    fix:
                        "request the Critical Alerts entitlement from Apple (developer.apple.com/contact/request/notifications-critical-alerts-entitlement), then add \(criticalAlertsEntitlement) = YES to \(name)'s entitlements and its provisioning profile"
                ))
        }
        return findings
    }

    /// An app and its service extension, when messages from people are shown (the project shows
    /// it, or the user says so): the capability, the activity type, the extension's intents.
    /// - Parameters:
    ///   - app: the app.
    ///   - service: its notification service extension.
    ///   - expectations: what the pushes use.
    /// - Returns: the findings.
    static func checkCommunication(app: TargetFacts, service: TargetFacts, expectations: DoctorExpectations) -> [DoctorFinding] {
        let capability = has(app, communicationEntitlement)
        let activityTypes = app.infoPlist["NSUserActivityTypes"]?.strings ?? []
        let intents = service.infoPlist["NSExtension"]?["NSExtensionAttributes"]?["IntentsSupported"]?.strings ?? []
        let sourcesUseIntent = service.sourceFiles.contains { file in
            (try? String(contentsOfFile: file, encoding: .utf8)).map { SourceScan.occurs(messageIntent, in: $0) } ?? false
        }
        // A communication setup: any part of it, or the user's (or the payload's) word.
        guard expectations.messages || capability || activityTypes.contains(messageIntent) || intents.contains(messageIntent) || sourcesUseIntent
        else { return [] }
        let why =
            expectations.messages
            ? "the pushes carry messages from people (communication notifications)"
            : "the project is set up for communication notifications (\(evidence(capability, activityTypes, intents, sourcesUseIntent)))"
        var findings: [DoctorFinding] = []
        let appName = app.target.name
        if !capability {
            findings.append(
                DoctorFinding(
                    .communicationCapabilityMissing, target: appName,
                    "\(why), but \(app.entitlementsPath ?? "the app's entitlements (none: CODE_SIGN_ENTITLEMENTS is not set)") lacks \(communicationEntitlement), so iOS shows every message as a normal notification (the extension reports intent_failed)",
                    fix: "\(appName) → Signing & Capabilities → + Capability → Communication Notifications (adds \(communicationEntitlement) = YES)"))
        }
        if !activityTypes.contains(messageIntent) {
            findings.append(
                DoctorFinding(
                    .communicationActivityTypeMissing, target: appName,
                    "\(why), but the app's Info.plist has no NSUserActivityTypes containing \(messageIntent) (it has \(activityTypes.isEmpty ? "none" : activityTypes.joined(separator: ", "))): Apple's App Store validation refuses the capability without it (ITMS-90894), and no message interaction can be donated",
                    fix: "add NSUserActivityTypes (an array) with \(messageIntent) to \(app.infoPlistPath ?? "the app's Info.plist")"))
        }
        if !intents.contains(messageIntent) {
            findings.append(
                DoctorFinding(
                    .communicationIntentsSupportedMissing, target: service.target.name,
                    "\(why), but the service extension's Info.plist has no NSExtension → NSExtensionAttributes → IntentsSupported containing \(messageIntent): the extension does not declare the intent it donates",
                    fix:
                        "add NSExtension → NSExtensionAttributes → IntentsSupported (an array) with \(messageIntent) to \(service.infoPlistPath ?? "the extension's Info.plist")"
                ))
        }
        return findings
    }

    /// Whether a target's entitlements set `key` to true.
    static func has(_ target: TargetFacts, _ key: String) -> Bool {
        target.entitlements?[key]?.truthValue == true
    }

    private static func evidence(_ capability: Bool, _ activityTypes: [String], _ intents: [String], _ sources: Bool) -> String {
        var parts: [String] = []
        if capability { parts.append("the app has \(communicationEntitlement)") }
        if activityTypes.contains(messageIntent) { parts.append("the app's NSUserActivityTypes lists \(messageIntent)") }
        if intents.contains(messageIntent) { parts.append("the extension's IntentsSupported lists \(messageIntent)") }
        if sources { parts.append("the extension's sources use \(messageIntent)") }
        return parts.joined(separator: "; ")
    }
}
