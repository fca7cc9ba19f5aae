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
    ///   - configuration: the one configuration whose settings are checked, or `nil` (the
    ///     default) for every configuration the project can be built with, each finding naming
    ///     those it holds in.
    ///   - names: what the fixes call the tools and settings (the command line's commands and options).
    /// - Returns: the report.
    public static func run(path: String, payload: Data? = nil, configuration: String? = nil, names: DoctorSettingNames = .library) -> DoctorReport {
        examine(path: path, payload: payload, configuration: configuration, names: names).report
    }

    /// Checks a project and a payload, and probes each media URL the service extension would use
    /// (`richpush doctor --payload FILE --probe`): `media_refused`, `media_slow`, `media_ok`.
    ///
    /// - Parameters:
    ///   - path: an `.xcodeproj`, an `.xcworkspace` or a folder holding one.
    ///   - payload: the bytes of the payload.
    ///   - probe: the media probe's settings (budget, allowed hosts).
    ///   - configuration: the one configuration whose settings are checked, or `nil` (the
    ///     default) for every configuration.
    ///   - names: what the fixes call the tools and settings (the command line's commands and options).
    /// - Returns: the report, the media findings among the others.
    public static func run(
        path: String, payload: Data, probe: MediaProbe.Settings, configuration: String? = nil, names: DoctorSettingNames = .library
    ) async -> DoctorReport {
        let (report, analysis) = examine(path: path, payload: payload, configuration: configuration, names: names)
        let media = await MediaChecks.check(payload, analysis: analysis, settings: probe, names: names)
        return DoctorReport(project: report.project, targets: report.targets, findings: report.findings + media, configurations: report.configurations)
    }

    private static func examine(path: String, payload: Data?, configuration: String?, names: DoctorSettingNames) -> (
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
        let configurations = configuration.map { [$0] } ?? Self.configurationNames(project)
        // The payload is checked, and the targets listed, against Release (what ships), else the first.
        let main = configurations.contains("Release") ? "Release" : configurations.first ?? "Release"
        let analysis = ProjectAnalysis(project: project, configuration: main)
        if configurations.count <= 1 {
            findings += ProjectDoctor.check(analysis)
        } else {
            // Each configuration's findings; one line per finding, naming the configurations it holds in.
            var order: [DoctorFinding] = []
            var holds: [DoctorFinding: [String]] = [:]
            for name in configurations {
                let checked = name == main ? analysis : ProjectAnalysis(project: project, configuration: name)
                for finding in ProjectDoctor.check(checked) {
                    if holds[finding] == nil { order.append(finding) }
                    if holds[finding]?.contains(name) != true { holds[finding, default: []].append(name) }
                }
            }
            // A finding of every configuration names none (the report lists the ones checked).
            findings += order.map { holds[$0]?.count == configurations.count ? $0 : $0.holding(in: holds[$0] ?? []) }
        }
        if let payload { findings += PayloadChecks.check(payload, analysis: analysis, names: names) }
        let targets = analysis.targets.filter { $0.kind != .other }.map { facts in
            DoctorReport.Target(
                name: facts.target.name, kind: facts.kind.rawValue, bundleID: facts.bundleID?.value, deploymentTarget: facts.deploymentTarget?.value,
                embeddedIn: facts.embeddedIn)
        }
        return (DoctorReport(project: located.project, targets: targets, findings: findings, configurations: configurations), analysis)
    }

    /// The configurations the project can be built with: the names in the project's
    /// configuration list (`Debug`, `Release`, and any added), in its order; a target's list
    /// falls back to its default for a name it lacks, as `xcodebuild -configuration` does.
    ///
    /// - Parameter project: the project.
    /// - Returns: the names (at least one: `Release` when the project lists none).
    static func configurationNames(_ project: XcodeProject) -> [String] {
        let list = project.object(project.root["buildConfigurationList"]?.string)
        var names: [String] = []
        for id in list?["buildConfigurations"]?.strings ?? [] {
            if let name = project.object(id)?["name"]?.string, !names.contains(name) { names.append(name) }
        }
        return names.isEmpty ? ["Release"] : names
    }
}
