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

    /// One line: `error nse_not_embedded NotificationService: … Fix: …`.
    public var description: String {
        "\(severity.rawValue) \(code) \(target): \(message)" + (fix.isEmpty ? "" : " Fix: \(fix)")
    }
}
