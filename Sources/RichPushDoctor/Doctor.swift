import Foundation

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
    /// - Returns: the report.
    public static func run(path: String, payload: Data? = nil, configuration: String = "Release") -> DoctorReport {
        let located: ProjectLocator.Located
        do {
            located = try ProjectLocator.locate(path)
        } catch {
            let failure = error as? DoctorFailure ?? DoctorFailure(.projectNotFound, "\(error)")
            var findings = [DoctorFinding(failure.code, target: path, failure.message, fix: "")]
            if let payload { findings += PayloadChecks.check(payload, analysis: nil) }
            return DoctorReport(project: nil, targets: [], findings: findings)
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
            if let payload { findings += PayloadChecks.check(payload, analysis: nil) }
            return DoctorReport(project: located.project, targets: [], findings: findings)
        }
        let analysis = ProjectAnalysis(project: project, configuration: configuration)
        findings += ProjectDoctor.check(analysis)
        if let payload { findings += PayloadChecks.check(payload, analysis: analysis) }
        let targets = analysis.targets.filter { $0.kind != .other }.map { facts in
            DoctorReport.Target(
                name: facts.target.name, kind: facts.kind.rawValue, bundleID: facts.bundleID?.value, deploymentTarget: facts.deploymentTarget?.value,
                embeddedIn: facts.embeddedIn)
        }
        return DoctorReport(project: located.project, targets: targets, findings: findings)
    }
}
