import Foundation
import RichPushMedia

/// `richpush doctor`: finds why a rich notification will not show — in the Xcode project or the
/// payload — before any push is sent.
public enum Doctor {
    /// Checks a project and, optionally, a payload.
    ///
    /// Never throws: a missing or malformed project is itself a finding (`project_not_found`,
    /// `project_unreadable` naming file and line).
    /// - Parameters:
    ///   - path: an `.xcodeproj`, an `.xcworkspace` or a folder holding one.
    ///   - payload: the bytes of a payload to lint against the project, or `nil`.
    ///   - configuration: the configuration whose settings are checked (Release).
    ///   - names: what the fixes call the tools and settings (the command line's commands and options).
    /// - Returns: the report.
    public static func run(path: String, payload: Data? = nil, configuration: String = "Release", names: DoctorSettingNames = .library) -> DoctorReport {
        examine(path: path, payload: payload, configuration: configuration, names: names).report
    }

    /// Checks a project and a payload, and probes each media URL the service extension would use
    /// (`richpush doctor --payload FILE --probe`): `media_refused`, `media_slow`, `media_ok`.
    ///
    /// - Parameters:
    ///   - path: an `.xcodeproj`, an `.xcworkspace` or a folder holding one.
    ///   - payload: the bytes of the payload.
    ///   - probe: the media probe's settings (budget, allowed hosts).
    ///   - configuration: the configuration whose settings are checked (Release).
    ///   - names: what the fixes call the tools and settings (the command line's commands and options).
    /// - Returns: the report, the media findings among the others.
    public static func run(
        path: String, payload: Data, probe: MediaProbe.Settings, configuration: String = "Release", names: DoctorSettingNames = .library
    ) async -> DoctorReport {
        let (report, analysis) = examine(path: path, payload: payload, configuration: configuration, names: names)
        let media = await MediaChecks.check(payload, analysis: analysis, settings: probe, names: names)
        return DoctorReport(project: report.project, targets: report.targets, findings: report.findings + media)
    }

    private static func examine(path: String, payload: Data?, configuration: String, names: DoctorSettingNames) -> (
        report: DoctorReport, analysis: ProjectAnalysis?
    ) {
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
            project = try XcodeProject(path: located.project)
        } catch {
            findings.append(
                DoctorFinding(.projectUnreadable, target: located.project, "\(error)", fix: "fix the file at that line (or restore it from version control)"))
            if let payload { findings += PayloadChecks.check(payload, analysis: nil, names: names) }
            return (DoctorReport(project: located.project, targets: [], findings: findings), nil)
        }
        let analysis = ProjectAnalysis(project: project, configuration: configuration)
        findings += ProjectDoctor.check(analysis)
        if let payload { findings += PayloadChecks.check(payload, analysis: analysis, names: names) }
        let targets = analysis.targets.filter { $0.kind != .other }.map { facts in
            DoctorReport.Target(
                name: facts.target.name, kind: facts.kind.rawValue, bundleID: facts.bundleID?.value, deploymentTarget: facts.deploymentTarget?.value,
                embeddedIn: facts.embeddedIn)
        }
        return (DoctorReport(project: located.project, targets: targets, findings: findings), analysis)
    }
}
