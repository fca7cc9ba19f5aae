import Foundation

/// The checks of `richpush doctor` on an analysed project: is there a notification service
/// extension, is it embedded, built, pointed and signed so that iOS runs it.
public enum ProjectDoctor {
    /// Runs every project check.
    ///
    /// - Parameters:
    ///   - analysis: the analysed project (one configuration).
    ///   - expectations: what the pushes use (interruption levels, messages), for the capability checks.
    /// - Returns: the findings (unsorted; `DoctorReport` sorts them).
    public static func check(_ analysis: ProjectAnalysis, expectations: DoctorExpectations = DoctorExpectations()) -> [DoctorFinding] {
        var findings: [DoctorFinding] = analysis.targets.flatMap(\.findings)
        let apps = analysis.targets.filter { $0.kind == .app }
        let notificationExtensions = analysis.targets.filter { $0.kind == .notificationService || $0.kind == .notificationContent }

        // Each notification extension: the app it belongs to (embedding, else bundle id, else the only app).
        var owners: [String: [TargetFacts]] = [:]
        for ext in notificationExtensions {
            findings += ExtensionChecks.checkExtension(ext)
            let embedders = analysis.embeddings.filter { $0.appExtension == ext.target.id }
            if embedders.isEmpty {
                let candidate = candidateApp(for: ext, among: apps)
                findings.append(
                    DoctorFinding(
                        .nseNotEmbedded, target: ext.target.name,
                        "the \(ext.kindDescription)'s product \(productName(ext, analysis)) is in no \"Embed Foundation Extensions\" copy phase (dstSubfolderSpec = 13) of \(candidate.map { "the app \($0.target.name)" } ?? "any app"), so it is never installed and iOS never runs it",
                        fix:
                            "in \(candidate?.target.name ?? "the app")'s Build Phases, add \(productName(ext, analysis)) to \"Embed Foundation Extensions\" (Xcode does this when the extension is created with the app selected under \"Embed in Application\")"
                    ))
                if let candidate { owners[candidate.target.id, default: []].append(ext) }
                continue
            }
            for embedding in embedders {
                guard let app = analysis.facts(embedding.app), app.kind == .app else { continue }
                owners[app.target.id, default: []].append(ext)
                if embedding.onlyWhenInstalling {
                    findings.append(
                        DoctorFinding(
                            .nseCopyOnlyWhenInstalling, target: ext.target.name,
                            "\(app.target.name)'s \"\(embedding.phaseName)\" phase has \"Copy only when installing\" on (runOnlyForDeploymentPostprocessing = 1), so builds run from Xcode carry no extension",
                            fix: "untick \"Copy only when installing\" in \(app.target.name) → Build Phases → \(embedding.phaseName)"))
                }
                if !(analysis.dependencies[app.target.id] ?? []).contains(ext.target.id) {
                    findings.append(
                        DoctorFinding(
                            .nseNotEmbedded, target: ext.target.name,
                            "the app \(app.target.name) embeds \(productName(ext, analysis)) but has no target dependency on \(ext.target.name), so a build of the app may embed a stale or missing extension",
                            fix: "add \(ext.target.name) to \(app.target.name) → Build Phases → Target Dependencies"))
                }
            }
        }

        for app in apps {
            let exts = owners[app.target.id] ?? []
            let services = exts.filter { $0.kind == .notificationService }
            let contents = exts.filter { $0.kind == .notificationContent }
            if services.isEmpty {
                findings.append(
                    DoctorFinding(
                        .nseMissing, target: app.target.name,
                        "the app has no notification service extension, so iOS shows every push as plain text: no image, no video, no RichPush receipts",
                        fix:
                            "File → New → Target → Notification Service Extension, embed it in \(app.target.name), link the RichPush package's RichPushNotificationService library and subclass RichPushServiceExtension (docs/extension.md, \"Add RichPush to your app\")"
                    ))
            }
            if contents.isEmpty {
                findings.append(
                    DoctorFinding(
                        .contentExtensionAbsent, target: app.target.name,
                        "no notification content extension: media shows as the system's thumbnail and expanded view",
                        fix: "optional: add a Notification Content Extension (Examples/NotificationContentExtension) for a custom view"))
            }
            for content in contents {
                let categories = content.contentCategories
                findings.append(
                    DoctorFinding(
                        .contentExtensionPresent, target: content.target.name,
                        "notification content extension of \(app.target.name), for the categories \(categories.isEmpty ? "(none)" : categories.joined(separator: ", "))",
                        fix: ""))
            }
            findings += ExtensionChecks.checkApp(app)
            for ext in exts { findings += ExtensionChecks.checkPair(app: app, ext: ext) }
            findings += CapabilityChecks.checkInterruptionLevels(app: app, expectations: expectations)
            for service in services { findings += CapabilityChecks.checkCommunication(app: app, service: service, expectations: expectations) }
        }
        return findings
    }

    /// The app an unembedded extension most likely belongs to: the one whose bundle id prefixes
    /// the extension's, else the only app.
    static func candidateApp(for ext: TargetFacts, among apps: [TargetFacts]) -> TargetFacts? {
        if let id = ext.bundleID?.value,
            let match = apps.first(where: { app in app.bundleID?.value.map { id.hasPrefix($0 + ".") } ?? false })
        {
            return match
        }
        return apps.count == 1 ? apps.first : nil
    }

    static func productName(_ ext: TargetFacts, _ analysis: ProjectAnalysis) -> String {
        let reference = analysis.project.object(ext.target.productReference)
        return reference?["path"]?.string ?? ext.settings.resolve("FULL_PRODUCT_NAME").value ?? "\(ext.target.name).appex"
    }
}
