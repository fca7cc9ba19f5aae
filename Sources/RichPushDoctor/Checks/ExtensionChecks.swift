import Foundation

/// The checks on one notification extension, on an app, and on an app with one of its extensions.
enum ExtensionChecks {
    /// Extension point and principal class.
    static func checkExtension(_ ext: TargetFacts) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        let name = ext.target.name
        let isService = ext.kind == .notificationService
        let wanted = isService ? NotificationExtensionPoint.service : NotificationExtensionPoint.content
        let point = ext.extensionPoint.map { ext.settings.expand($0).value ?? $0 }
        let plist = ext.infoPlistPath ?? "its Info.plist"
        if point != wanted {
            findings.append(
                DoctorFinding(
                    .nseWrongExtensionPoint, target: name,
                    "NSExtension.NSExtensionPointIdentifier is \(point.map { "\"\($0)\"" } ?? "missing"), not \(wanted), so iOS never runs this \(ext.kindDescription)",
                    fix: "set NSExtension → NSExtensionPointIdentifier to \(wanted) in \(plist)"))
        }
        if !isService && ext.contentCategories.isEmpty {
            findings.append(
                DoctorFinding(
                    .nseWrongExtensionPoint, target: name,
                    "the content extension lists no UNNotificationExtensionCategory, so iOS shows it for no notification",
                    fix:
                        "add NSExtension → NSExtensionAttributes → UNNotificationExtensionCategory with the categories it shows (RichPush sets image, video, audio) to \(plist)"
                ))
        }
        if !isService && ext.principalClass == nil && ext.infoPlist["NSExtension"]?["NSExtensionMainStoryboard"] != nil {
            return findings
        }
        findings += checkPrincipalClass(ext)
        return findings
    }

    static func checkPrincipalClass(_ ext: TargetFacts) -> [DoctorFinding] {
        let name = ext.target.name
        let plist = ext.infoPlistPath ?? "its Info.plist"
        guard let written = ext.principalClass else {
            return [
                DoctorFinding(
                    .nsePrincipalClass, target: name, "NSExtension.NSExtensionPrincipalClass is missing, so iOS has no class to run",
                    fix: "set NSExtension → NSExtensionPrincipalClass to $(PRODUCT_MODULE_NAME).NotificationService (your class) in \(plist)")
            ]
        }
        guard case .value(let value) = ext.settings.expand(written) else {
            return [
                DoctorFinding(
                    .settingUnresolved, target: name,
                    "NSExtensionPrincipalClass \"\(written)\" cannot be resolved: \(ext.settings.expand(written)); the class was not checked",
                    fix: "set the build settings it names")
            ]
        }
        var module: String?
        var className = value
        if let dot = value.firstIndex(of: ".") {
            module = String(value[..<dot])
            className = String(value[value.index(after: dot)...])
        }
        let moduleName = ext.settings.resolve("PRODUCT_MODULE_NAME").value
        if let module, let moduleName, module != moduleName {
            return [
                DoctorFinding(
                    .nsePrincipalClass, target: name,
                    "NSExtensionPrincipalClass \"\(value)\" names the module \(module), but the target's module is \(moduleName), so iOS finds no such class",
                    fix: "write $(PRODUCT_MODULE_NAME).\(className) in \(plist)")
            ]
        }
        guard !ext.sourceFiles.isEmpty else {
            if ext.sourceFilesNamed > 0 {
                return [
                    DoctorFinding(
                        .fileMissing, target: name,
                        "none of the target's \(ext.sourceFilesNamed) source files is on disk, so the principal class \(value) was not checked",
                        fix: "run richpush doctor in a full checkout")
                ]
            }
            if !ext.packageProducts.isEmpty {
                return [
                    DoctorFinding(
                        .nsePrincipalClass, severity: .warning, target: name,
                        "NSExtensionPrincipalClass is \(value) and the target compiles no source file of its own; the class may come from a linked package (\(ext.packageProducts.joined(separator: ", "))), which was not checked",
                        fix: "make sure \(className) is declared in the module \(module ?? "the class names")")
                ]
            }
            return [
                DoctorFinding(
                    .nsePrincipalClass, target: name, "NSExtensionPrincipalClass is \(value), but the target compiles no source file, so no such class exists",
                    fix: "add the file declaring \(className) to the target's Compile Sources")
            ]
        }
        var swift = false
        var objcName = false
        for file in ext.sourceFiles {
            guard let text = ext.sourceText(file) else { continue }
            if SourceScan.declares(swiftClass: className, in: text) { swift = true }
            if SourceScan.declares(objectiveCClass: className, in: text) { objcName = true }
        }
        if !swift && !objcName {
            return [
                DoctorFinding(
                    .nsePrincipalClass, target: name,
                    "NSExtensionPrincipalClass is \(value), but no class \(className) is declared in the target's \(ext.sourceFiles.count) source file(s), so the extension crashes at launch and iOS shows the push without it",
                    fix: "name your UNNotificationServiceExtension subclass in \(plist) as $(PRODUCT_MODULE_NAME).ClassName")
            ]
        }
        if module == nil && swift && !objcName {
            return [
                DoctorFinding(
                    .nsePrincipalClass, target: name,
                    "NSExtensionPrincipalClass \"\(value)\" is not module-qualified, but \(className) is a Swift class, which the Objective-C runtime knows as \(moduleName ?? "Module").\(className)",
                    fix: "write $(PRODUCT_MODULE_NAME).\(className) in \(plist) (or declare @objc(\(className)))")
            ]
        }
        return []
    }

    /// The app alone: the Push Notifications capability.
    static func checkApp(_ app: TargetFacts) -> [DoctorFinding] {
        let name = app.target.name
        guard let entitlements = app.entitlements else {
            if app.entitlementsPath != nil { return [] }  // named but unreadable: already a finding
            if app.settings.isSet("CODE_SIGN_ENTITLEMENTS") { return [] }  // unresolved: already a finding
            return [
                DoctorFinding(
                    .apsEnvironmentMissing, target: name,
                    "the app has no entitlements file (CODE_SIGN_ENTITLEMENTS), so no aps-environment: APNs gives it no device token",
                    fix: "\(name) → Signing & Capabilities → + Capability → Push Notifications")
            ]
        }
        if entitlements["aps-environment"] == nil {
            return [
                DoctorFinding(
                    .apsEnvironmentMissing, target: name,
                    "the app's entitlements \(app.entitlementsPath ?? "") lack aps-environment, so APNs gives it no device token",
                    fix:
                        "\(name) → Signing & Capabilities → + Capability → Push Notifications (adds aps-environment = development; distribution signing makes it production)"
                )
            ]
        }
        return []
    }

    /// An app and one of its notification extensions: deployment target, bundle id, App Group, linking.
    static func checkPair(app: TargetFacts, ext: TargetFacts) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        let name = ext.target.name
        let appTarget = app.deploymentTarget?.value ?? app.settings.resolve("IPHONEOS_DEPLOYMENT_TARGET").value
        if case .value(let extTarget)? = ext.deploymentTarget, let appTarget, Version(extTarget) > Version(appTarget) {
            findings.append(
                DoctorFinding(
                    .nseDeploymentTargetAboveApp, target: name,
                    "IPHONEOS_DEPLOYMENT_TARGET is \(extTarget), above the app \(app.target.name)'s \(appTarget): devices on iOS \(appTarget) up to below \(extTarget) install the app without the extension",
                    fix: "set \(name)'s iOS Deployment Target to \(appTarget) (or lower), or raise the app's"))
        }
        switch (app.bundleID, ext.bundleID) {
        case (.value(let appID)?, .value(let extID)?):
            if !extID.hasPrefix(appID + ".") {
                findings.append(
                    DoctorFinding(
                        .nseBundleIDPrefix, target: name,
                        "the bundle id \(extID) does not start with the app's \(appID) and a dot, so the app cannot embed it (Xcode refuses to install it)",
                        fix: "set PRODUCT_BUNDLE_IDENTIFIER to \(appID).\(extID.split(separator: ".").last.map(String.init) ?? "NotificationService")"))
            }
        case (.unresolved(let reason)?, _):
            findings.append(ProjectAnalysis.unresolved("the app's bundle id", reason, target: app.target.name))
        case (_, .unresolved(let reason)?):
            findings.append(ProjectAnalysis.unresolved("the bundle id", reason, target: name))
        default:
            break
        }
        guard ext.kind == .notificationService else { return findings }
        findings += checkAppGroup(app: app, ext: ext)
        if !ext.linksRichPush {
            findings.append(
                DoctorFinding(
                    .richPushNotLinked, target: name, "the extension does not link the RichPush package's RichPushNotificationService product",
                    fix: "to use RichPush: \(name) → General → Frameworks and Libraries → + → RichPushNotificationService"))
        }
        return findings
    }

    static func checkAppGroup(app: TargetFacts, ext: TargetFacts) -> [DoctorFinding] {
        let name = ext.target.name
        let appGroups = app.appGroups
        let extGroups = ext.appGroups
        if let group = ext.richPushAppGroup {
            var missing: [String] = []
            if !appGroups.contains(group) { missing.append("the app \(app.target.name)") }
            if !extGroups.contains(group) { missing.append("the extension \(name)") }
            guard !missing.isEmpty else { return [] }
            return [
                DoctorFinding(
                    .appGroupMismatch, target: name,
                    "RichPush's App Group \(group) (RichPush → AppGroupIdentifier) is not in the entitlements of \(missing.joined(separator: " and ")), so receipts and the badge count are not shared",
                    fix: "add \(group) under Signing & Capabilities → App Groups of both targets")
            ]
        }
        // Without RichPush's group: an extension that lists groups must share one with the app.
        if !extGroups.isEmpty && Set(appGroups).isDisjoint(with: extGroups) {
            return [
                DoctorFinding(
                    .appGroupMismatch, target: name,
                    "the app \(app.target.name) lists the App Groups [\(appGroups.joined(separator: ", "))] and the extension [\(extGroups.joined(separator: ", "))]: they share none",
                    fix: "list the same group under Signing & Capabilities → App Groups of both targets")
            ]
        }
        return []
    }
}

/// A dotted version (`16.4`), compared numerically: `16.10` > `16.9`, `16` == `16.0`.
struct Version: Comparable {
    let parts: [Int]

    init(_ text: String) {
        parts = text.split(separator: ".").map { Int($0.prefix { $0.isNumber }) ?? 0 }
    }

    static func < (lhs: Version, rhs: Version) -> Bool {
        for i in 0..<max(lhs.parts.count, rhs.parts.count) {
            let a = i < lhs.parts.count ? lhs.parts[i] : 0
            let b = i < rhs.parts.count ? rhs.parts[i] : 0
            if a != b { return a < b }
        }
        return false
    }

    static func == (lhs: Version, rhs: Version) -> Bool { !(lhs < rhs) && !(rhs < lhs) }
}
