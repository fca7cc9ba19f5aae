import Foundation
import RichPushCore

/// What `richpush doctor` found: the project, its targets, the findings; written as lines or JSON.
public struct DoctorReport: Sendable {
    /// One target as the report lists it.
    public struct Target: Sendable, Hashable {
        /// The target name.
        public let name: String
        /// `app`, `notification_service_extension`, `notification_content_extension`, `app_extension`.
        public let kind: String
        /// The bundle id, or `nil` when unresolved.
        public let bundleID: String?
        /// `IPHONEOS_DEPLOYMENT_TARGET`, or `nil` when not set or unresolved.
        public let deploymentTarget: String?
        /// The apps that embed it.
        public let embeddedIn: [String]
    }

    /// The `.xcodeproj` checked, or `nil` when none was.
    public let project: String?
    /// The app and app-extension targets.
    public let targets: [Target]
    /// The findings, errors first, then warnings, then info.
    public let findings: [DoctorFinding]

    /// Makes a report, sorting the findings (errors first; stable within a severity).
    /// - Parameters:
    ///   - project: the project path.
    ///   - targets: the targets.
    ///   - findings: the findings in any order.
    public init(project: String?, targets: [Target], findings: [DoctorFinding]) {
        self.project = project
        self.targets = targets
        var seen = Set<DoctorFinding>()
        let unique = findings.filter { seen.insert($0).inserted }
        self.findings = unique.enumerated().sorted { a, b in
            a.element.severity != b.element.severity ? a.element.severity < b.element.severity : a.offset < b.offset
        }.map(\.element)
    }

    /// Whether an error was found (exit status 1).
    public var hasErrors: Bool { findings.contains { $0.severity == .error } }

    /// The summary line: counts, the project and its targets.
    public var summary: String {
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        let notes = findings.filter { $0.severity == .info }.count
        var line =
            "richpush doctor: \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"), \(notes) note\(notes == 1 ? "" : "s")"
        if let project {
            let names = targets.map { target in
                target.name + " (" + target.kind.replacingOccurrences(of: "_", with: " ")
                    + (target.embeddedIn.isEmpty ? "" : ", in " + target.embeddedIn.joined(separator: ", ")) + ")"
            }
            line += " in \(project)" + (names.isEmpty ? "" : ": " + names.joined(separator: "; "))
        }
        return line + (errors == 0 ? "; no error found" : "")
    }

    /// The lines: one per finding, then the summary.
    public var lines: [String] {
        findings.map(\.description) + [summary]
    }

    /// `{"project", "targets": [{name, kind, bundle_id, deployment_target, embedded_in}], "findings": [{code, severity, target, message, fix}]}`.
    public var json: JSONValue {
        .object([
            "project": project.map(JSONValue.string) ?? .null,
            "targets": .array(
                targets.map { target in
                    .object([
                        "name": .string(target.name), "kind": .string(target.kind), "bundle_id": target.bundleID.map(JSONValue.string) ?? .null,
                        "deployment_target": target.deploymentTarget.map(JSONValue.string) ?? .null,
                        "embedded_in": .array(target.embeddedIn.map(JSONValue.string)),
                    ])
                }),
            "findings": .array(
                findings.map { finding in
                    .object([
                        "code": .string(finding.code.rawValue), "severity": .string(finding.severity.rawValue), "target": .string(finding.target),
                        "message": .string(finding.message), "fix": .string(finding.fix),
                    ])
                }),
        ])
    }
}
