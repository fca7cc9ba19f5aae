/// One thing `richpush doctor` found: a stable code, how bad it is, the target it concerns, what
/// is wrong and how to fix it.
public struct DoctorFinding: Sendable, Hashable, CustomStringConvertible {
    /// How bad a finding is; errors make `richpush doctor` exit 1.
    public enum Severity: String, Sendable, Hashable, Comparable {
        /// The rich notification will not show (or will break) as the project is.
        case error
        /// Something could not be checked, or is probably a mistake.
        case warning
        /// For information: what was found.
        case info

        var rank: Int {
            switch self {
            case .error: return 0
            case .warning: return 1
            case .info: return 2
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// The stable code (listed in docs/doctor.md).
    public let code: DoctorCode
    /// How bad it is.
    public let severity: Severity
    /// The target it concerns (`payload` for the payload, the project name for the project).
    public let target: String
    /// What is wrong.
    public let message: String
    /// What to do.
    public let fix: String
    /// The build configurations it holds in (`Debug`, `Release`, …), in the project's order;
    /// empty for what no configuration changes (the payload, a project that cannot be read).
    public var configurations: [String] = []

    /// Makes a finding.
    /// - Parameters:
    ///   - code: the stable code.
    ///   - severity: error, warning or info (default: the code's).
    ///   - target: the target it concerns.
    ///   - message: what is wrong.
    ///   - fix: what to do.
    public init(_ code: DoctorCode, severity: Severity? = nil, target: String, _ message: String, fix: String) {
        self.code = code
        self.severity = severity ?? code.severity
        self.target = target
        self.message = message
        self.fix = fix
    }

    /// One line: `error nse_not_embedded NotificationService: … [Debug, Release] Fix: …` (the
    /// configurations in brackets, when the finding depends on them).
    public var description: String {
        "\(severity.rawValue) \(code) \(target): \(message)" + (configurations.isEmpty ? "" : " [\(configurations.joined(separator: ", "))]")
            + (fix.isEmpty ? "" : " Fix: \(fix)")
    }

    /// The findings of several configurations as one list: a finding found in several of them
    /// once, naming them all (in the order given); the first appearance decides the order.
    /// - Parameter perConfiguration: each configuration's name and findings.
    /// - Returns: the findings, each with its `configurations`.
    public static func merging(_ perConfiguration: [(configuration: String, findings: [DoctorFinding])]) -> [DoctorFinding] {
        var order: [DoctorFinding] = []
        var configurations: [DoctorFinding: [String]] = [:]
        for (name, findings) in perConfiguration {
            for finding in findings {
                var key = finding
                key.configurations = []
                if configurations[key] == nil { order.append(key) }
                if !(configurations[key] ?? []).contains(name) { configurations[key, default: []].append(name) }
            }
        }
        return order.map { finding in
            var merged = finding
            // What is about the payload holds whatever the configuration.
            merged.configurations = finding.target == "payload" ? [] : configurations[finding] ?? []
            return merged
        }
    }
}
