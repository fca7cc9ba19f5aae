/// A problem that stops `richpush doctor` before any check: no project at the path, an
/// unreadable workspace or `project.pbxproj`. Reported as one error finding.
public struct DoctorFailure: Error, Sendable, CustomStringConvertible {
    /// The finding code (`project_not_found`, `project_unreadable`).
    public let code: DoctorCode
    /// What is wrong and what to do, naming the file (and line).
    public let message: String

    /// Makes a failure.
    /// - Parameters:
    ///   - code: the finding code.
    ///   - message: what is wrong and what to do.
    public init(_ code: DoctorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
