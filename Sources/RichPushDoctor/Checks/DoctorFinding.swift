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
    /// The build configurations it holds in (`["Debug"]`) when it holds in some of those
    /// checked, not all; empty otherwise (`DoctorReport.configurations` lists those checked).
    public let configurations: [String]

    /// Makes a finding.
    /// - Parameters:
    ///   - code: the stable code.
    ///   - severity: error, warning or info (default: the code's).
    ///   - target: the target it concerns.
    ///   - message: what is wrong.
    ///   - fix: what to do.
    ///   - configurations: the build configurations it holds in (empty: not about one).
    public init(_ code: DoctorCode, severity: Severity? = nil, target: String, _ message: String, fix: String, configurations: [String] = []) {
        self.code = code
        self.severity = severity ?? code.severity
        self.target = target
        self.message = message
        self.fix = fix
        self.configurations = configurations
    }

    /// The same finding, holding in `configurations`.
    ///
    /// - Parameter configurations: the build configurations.
    /// - Returns: the finding naming them.
    public func holding(in configurations: [String]) -> DoctorFinding {
        DoctorFinding(code, severity: severity, target: target, message, fix: fix, configurations: configurations)
    }

    /// One line: `error nse_not_embedded NotificationService: … Fix: …`, the configurations after
    /// the target (`NotificationService [Debug]`) when it holds in some only.
    public var description: String {
        let configured = configurations.isEmpty ? target : "\(target) [\(configurations.joined(separator: ", "))]"
        return "\(severity.rawValue) \(code) \(configured): \(message)" + (fix.isEmpty ? "" : " Fix: \(fix)")
    }
}
