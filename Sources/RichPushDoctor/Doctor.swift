import Foundation
import RichPushCore
import RichPushMedia

/// `richpush doctor`: finds why a rich notification will not show — in the Xcode project or the
/// payload — before any push is sent.
///
/// Every build configuration of the project is checked (each can be built and installed: Debug
/// from Xcode, Release from an archive, any other from a scheme); a finding names the
/// configurations it holds in (`DoctorFinding.configurations`).
public enum Doctor {
    /// Checks a project and, optionally, a payload.
    ///
    /// Never throws: a missing or malformed project is itself a finding (`project_not_found`,
    /// `project_unreadable` naming file and line).
    /// - Parameters:
    ///   - path: an `.xcodeproj`, an `.xcworkspace` or a folder holding one.
    ///   - payload: the bytes of a payload to lint against the project, or `nil`.
    ///   - configurations: the build configurations to check; `nil` (default) for every one the project has.
    ///   - expectations: what the pushes use (interruption levels, messages from people), for
    ///     the capability checks; the payload's interruption level and sender are added.
    ///   - names: what the fixes call the tools and settings (the command line's commands and options).
    /// - Returns: the report.
    public static func run(
        path: String, payload: Data? = nil, configurations: [String]? = nil, expectations: DoctorExpectations = DoctorExpectations(),
        names: DoctorSettingNames = .library
    ) -> DoctorReport {
        examine(path: path, payload: payload, configurations: configurations, expectations: expectations, names: names).report
    }

    /// Checks a project and a payload, and probes each media URL the service extension would use
    /// (`richpush doctor --payload FILE --probe`): `media_refused`, `media_slow`, `media_ok`.
    ///
    /// - Parameters:
    ///   - path: an `.xcodeproj`, an `.xcworkspace` or a folder holding one.
    ///   - payload: the bytes of the payload.
    ///   - probe: the media probe's settings (budget, allowed hosts).
    ///   - configurations: the build configurations to check; `nil` (default) for every one.
    ///   - expectations: what the pushes use, for the capability checks.
    ///   - names: what the fixes call the tools and settings (the command line's commands and options).
    /// - Returns: the report, the media findings among the others.
    public static func run(
        path: String, payload: Data, probe: MediaProbe.Settings, configurations: [String]? = nil,
        expectations: DoctorExpectations = DoctorExpectations(), names: DoctorSettingNames = .library
    ) async -> DoctorReport {
        let (report, analysis) = examine(path: path, payload: payload, configurations: configurations, expectations: expectations, names: names)
        let media = await MediaChecks.check(payload, analysis: analysis, settings: probe, names: names)
        return DoctorReport(project: report.project, targets: report.targets, findings: report.findings + media, configurations: report.configurations)
    }

    private static func examine(
        path: String, payload: Data?, configurations: [String]?, expectations: DoctorExpectations, names: DoctorSettingNames
    ) -> (report: DoctorReport, analysis: ProjectAnalysis?) {
        let located: ProjectLocator.Located
        do {
            located = try ProjectLocator.locate(path)
        } catch {
            let failure = error as? DoctorFailure ?? DoctorFailure(.projectNotFound, "\(error)")
            var findings = [DoctorFinding(failure.code, target: path, failure.message, fix: "")]
            if let payload { findings += PayloadChecks.check(payload, analysis: nil, names: names) }
            return (DoctorReport(project: nil, targets: [], findings: findings), nil)
        }
        var findings: [DoctorFinding] = []
        if !located.others.isEmpty {
            findings.append(
                DoctorFinding(
                    .severalProjects, target: located.project,
                    "found \(located.others.count + 1) projects; checked \(located.project), not \(located.others.joined(separator: ", "))",
                    fix: "give the path of the .xcodeproj to check another"))
        }
        let project: XcodeProject
        do {
            project = try XcodeProject(path: located.project, files: ProjectFiles(root: located.root))
        } catch {
            findings.append(
                DoctorFinding(.projectUnreadable, target: located.project, "\(error)", fix: "fix the file at that line (or restore it from version control)"))
            if let payload { findings += PayloadChecks.check(payload, analysis: nil, names: names) }
            return (DoctorReport(project: located.project, targets: [], findings: findings), nil)
        }
        // Each configuration on its own; the same finding in several is reported once, naming them.
        var perConfiguration: [(configuration: String, findings: [DoctorFinding])] = []
        var listed: ProjectAnalysis?
        for name in configurations ?? ProjectAnalysis.configurationNames(of: project) {
            let analysis = ProjectAnalysis(project: project, configuration: name)
            let services = analysis.targets.filter { $0.kind == .notificationService }
            let widened = expectations.adding(payload: payload, senderKeyPaths: PayloadChecks.senderKeyPaths(services.first))
            var found = ProjectDoctor.check(analysis, expectations: widened)
            if let payload { found += PayloadChecks.check(payload, analysis: analysis, names: names) }
            perConfiguration.append((name, found))
            // The targets listed (and the media probed) are Release's when there is one.
            if listed == nil || name == "Release" { listed = analysis }
        }
        findings += DoctorFinding.merging(perConfiguration)
        let targets = (listed?.targets ?? []).filter { $0.kind != .other }.map { facts in
            DoctorReport.Target(
                name: facts.target.name, kind: facts.kind.rawValue, bundleID: facts.bundleID?.value, deploymentTarget: facts.deploymentTarget?.value,
                embeddedIn: facts.embeddedIn)
        }
        return (DoctorReport(project: located.project, targets: targets, findings: findings, configurations: perConfiguration.map(\.configuration)), listed)
    }
}
