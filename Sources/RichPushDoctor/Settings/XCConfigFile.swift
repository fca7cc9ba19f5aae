import Foundation

/// Reads an `.xcconfig` file and the files it includes, in order, into assignments.
///
/// Syntax (Xcode's): `NAME = value` and `NAME[sdk=iphoneos*] = value` (a trailing `;` is
/// dropped), `//` starts a comment anywhere on a line (so a URL needs `/$()/`), `#include "x"`
/// must find `x` and `#include? "x"` may not (relative to the including file's folder; paths
/// starting `<DEVELOPER_DIR>` are Xcode's own and skipped). An include cycle or more than 32
/// levels is a problem, not a hang.
///
/// Safe on a hostile project: files are read through `ProjectFiles` (only regular files inside
/// the project folder, each read and parsed once however many files include it, and each file's
/// resolution made once for every target and configuration that names it), one resolution
/// follows at most `maximumIncludes` includes and keeps at most `maximumAssignments`
/// assignments (a diamond of includes 30 levels deep would otherwise mean 2³⁰ reads), and a
/// problem names the file and line but never quotes the line (an included private key would
/// otherwise come back line by line).
public struct XCConfigFile: Sendable {
    /// Includes nested deeper than this are refused.
    public static let maximumIncludeDepth = 32
    /// Includes followed in one resolution at most: 256 (real projects follow a handful).
    public static let maximumIncludes = 256
    /// Assignments kept in one resolution at most: 100,000.
    public static let maximumAssignments = 100_000

    /// The assignments of the file and its includes, in the order Xcode applies them (an
    /// include's at the place of its `#include`).
    public private(set) var assignments: [BuildSettingAssignment] = []
    /// Problems found: a missing file, a bad line, an include cycle (file and line each).
    public private(set) var problems: [PropertyListError] = []

    /// One file, parsed once (`ProjectFiles` keeps it by real path).
    struct Parsed: Sendable {
        /// Its lines that matter, in order.
        enum Item: Sendable {
            case include(path: String, optional: Bool, line: Int)
            case assignment(name: String, conditions: [String: String], value: String, line: Int)
            case problem(line: Int, message: String)
        }
        var items: [Item]
    }

    private var includes = 0
    private var seenProblems: Set<PropertyListError> = []
    private var stopped = false

    /// Reads `path` and its includes within the folder holding it.
    /// - Parameter path: the `.xcconfig` file.
    public init(path: String) {
        self.init(path: path, files: ProjectFiles(root: (path as NSString).deletingLastPathComponent))
    }

    /// Reads `path` and its includes through `files`.
    /// - Parameters:
    ///   - path: the `.xcconfig` file.
    ///   - files: the project's files (the gate and the cache).
    public init(path: String, files: ProjectFiles) {
        self = files.resolution(path) {
            var file = XCConfigFile()
            file.read(path, includedFrom: nil, stack: [], optional: false, files: files)
            return file
        }
    }

    private init() {}

    private mutating func problem(_ error: PropertyListError) {
        if seenProblems.insert(error).inserted { problems.append(error) }
    }

    private mutating func read(_ path: String, includedFrom: (file: String, line: Int)?, stack: [String], optional: Bool, files: ProjectFiles) {
        guard !stopped else { return }
        includes += 1
        guard includes <= Self.maximumIncludes else {
            stopped = true
            problem(
                PropertyListError(
                    file: includedFrom?.file ?? path, line: includedFrom?.line ?? 0,
                    message: "includes reach more than \(Self.maximumIncludes) files (the same files included over and over); the rest were not read"))
            return
        }
        let data: Data
        let real: String
        do {
            data = try files.read(path)
            guard case .inside(let r) = files.place(path) else { return }
            real = r
        } catch {
            if error.message == "no such file" {
                if !optional {
                    if let includedFrom {
                        problem(
                            PropertyListError(
                                file: includedFrom.file, line: includedFrom.line,
                                message: "#include \"\(Self.shown(path))\": no such file (use #include? for an optional one)"))
                    } else {
                        problem(PropertyListError(file: path, line: 0, message: "no such file (the configuration's base .xcconfig)"))
                    }
                }
            } else if let includedFrom {
                problem(PropertyListError(file: includedFrom.file, line: includedFrom.line, message: "#include \"\(Self.shown(path))\" \(error.message)"))
            } else {
                problem(error)
            }
            return
        }
        if stack.contains(real) {
            problem(
                PropertyListError(
                    file: includedFrom?.file ?? path, line: includedFrom?.line ?? 0,
                    message: "#include \"\(Self.shown(path))\" includes itself (an include cycle); remove one of the includes"))
            return
        }
        guard stack.count < Self.maximumIncludeDepth else {
            problem(
                PropertyListError(
                    file: includedFrom?.file ?? path, line: includedFrom?.line ?? 0, message: "includes nest deeper than \(Self.maximumIncludeDepth) files"))
            return
        }
        let parsed = files.xcconfig(real) { Self.parse(data) }
        let directory = (path as NSString).deletingLastPathComponent
        for item in parsed.items {
            guard !stopped else { return }
            switch item {
            case .include(let included, let isOptional, let line):
                read(XcodeProject.join(directory, included), includedFrom: (path, line), stack: stack + [real], optional: isOptional, files: files)
            case .assignment(let name, let conditions, let value, let line):
                guard assignments.count < Self.maximumAssignments else {
                    stopped = true
                    problem(
                        PropertyListError(
                            file: path, line: line,
                            message:
                                "the includes make more than \(Self.maximumAssignments) assignments (the same files included over and over); the rest were not read"
                        ))
                    return
                }
                assignments.append(BuildSettingAssignment(name: name, conditions: conditions, value: value, origin: "\(path):\(line)"))
            case .problem(let line, let message):
                problem(PropertyListError(file: path, line: line, message: message))
            }
        }
    }

    /// The items of one file's text.
    static func parse(_ data: Data) -> Parsed {
        var items: [Parsed.Item] = []
        let text = String(decoding: data, as: UTF8.self)
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#include") {
                let isOptional = trimmed.hasPrefix("#include?")
                guard let open = trimmed.firstIndex(of: "\""), let close = trimmed[trimmed.index(after: open)...].firstIndex(of: "\"") else {
                    items.append(.problem(line: lineNumber, message: "#include needs a quoted path: #include \"Shared.xcconfig\""))
                    continue
                }
                let included = String(trimmed[trimmed.index(after: open)..<close])
                if included.hasPrefix("<") { continue }  // <DEVELOPER_DIR>/…: Xcode's own files
                items.append(.include(path: included, optional: isOptional, line: lineNumber))
                continue
            }
            if let comment = line.range(of: "//") { line = line[..<comment.lowerBound] }
            let content = line.trimmingCharacters(in: .whitespaces)
            if content.isEmpty { continue }
            guard let equals = content.firstIndex(of: "=") else {
                // The line is not quoted: it may be anything an include pulled in.
                items.append(.problem(line: lineNumber, message: "expected NAME = value or #include \"file\" (the line is not shown)"))
                continue
            }
            // `=` inside the condition brackets belongs to the key.
            var keyEnd = equals
            if let bracket = content.firstIndex(of: "["), bracket < equals, let closing = content.lastIndex(of: "]"),
                let after = content[closing...].firstIndex(of: "=")
            {
                keyEnd = after
            }
            let (name, conditions) = BuildSettingAssignment.splitKey(String(content[..<keyEnd]))
            var value = content[content.index(after: keyEnd)...].trimmingCharacters(in: .whitespaces)
            if value.hasSuffix(";") { value = String(value.dropLast()).trimmingCharacters(in: .whitespaces) }
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                items.append(
                    .problem(line: lineNumber, message: "the name before = is not a build setting name (letters, digits and _; the line is not shown)"))
                continue
            }
            items.append(.assignment(name: name, conditions: conditions, value: value, line: lineNumber))
        }
        return Parsed(items: items)
    }

    /// An include path as a problem shows it: printable, at most 200 characters.
    static func shown(_ path: String) -> String {
        let printable = String(String.UnicodeScalarView(path.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        return printable.count > 200 ? String(printable.prefix(200)) + "…" : printable
    }
}
