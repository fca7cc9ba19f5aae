/// A property list, pbxproj, xcconfig or workspace file that cannot be read: the file, the line
/// (1-based; 0 when the problem is the whole file) and what is wrong.
public struct PropertyListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, as given (a path, or a name such as `project.pbxproj` for in-memory text).
    public var file: String
    /// The 1-based line, or 0 when no line applies (a missing file).
    public var line: Int
    /// What is wrong there.
    public var message: String

    /// Makes an error.
    /// - Parameters:
    ///   - file: the file.
    ///   - line: the 1-based line, or 0.
    ///   - message: what is wrong.
    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message` (or `file: message` with no line).
    public var description: String {
        line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
    }
}
