import Foundation

/// Reads an `.xcconfig` file and the files it includes, in order, into assignments.
///
/// Syntax (Xcode's): `NAME = value` and `NAME[sdk=iphoneos*] = value` (a trailing `;` is
/// dropped), `//` starts a comment anywhere on a line (so a URL needs `/$()/`), `#include "x"`
/// must find `x` and `#include? "x"` may not (relative to the including file's folder; paths
/// starting `<DEVELOPER_DIR>` are Xcode's own and skipped). An include cycle or more than 32
/// levels is a problem, not a hang.
public struct XCConfigFile: Sendable {
    /// Includes nested deeper than this are refused.
    public static let maximumIncludeDepth = 32

    /// The assignments of the file and its includes, in the order Xcode applies them (an
    /// include's at the place of its `#include`).
    public private(set) var assignments: [BuildSettingAssignment] = []
    /// Problems found: a missing file, a bad line, an include cycle (file and line each).
    public private(set) var problems: [PropertyListError] = []

    /// Reads `path` and its includes.
    /// - Parameter path: the `.xcconfig` file.
    public init(path: String) {
        read(path, includedFrom: nil, stack: [])
    }

    private mutating func read(_ path: String, includedFrom: (file: String, line: Int)?, stack: [String], optional: Bool = false) {
        let standardized = (path as NSString).standardizingPath
        if stack.contains(standardized) {
            problems.append(
                PropertyListError(
                    file: includedFrom?.file ?? path, line: includedFrom?.line ?? 0,
                    message: "#include \"\(path)\" includes itself (an include cycle); remove one of the includes"
                ))
            return
        }
        guard stack.count < Self.maximumIncludeDepth else {
            problems.append(
                PropertyListError(
                    file: includedFrom?.file ?? path, line: includedFrom?.line ?? 0, message: "includes nest deeper than \(Self.maximumIncludeDepth) files"))
            return
        }
        guard let data = try? PropertyListFile.readBytes(path) else {
            if !optional {
                if let includedFrom {
                    problems.append(
                        PropertyListError(
                            file: includedFrom.file, line: includedFrom.line, message: "#include \"\(path)\": no such file (use #include? for an optional one)")
                    )
                } else {
                    problems.append(PropertyListError(file: path, line: 0, message: "no such file (the configuration's base .xcconfig)"))
                }
            }
            return
        }
        let text = String(decoding: data, as: UTF8.self)
        let directory = (path as NSString).deletingLastPathComponent
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#include") {
                let isOptional = trimmed.hasPrefix("#include?")
                guard let open = trimmed.firstIndex(of: "\""), let close = trimmed[trimmed.index(after: open)...].firstIndex(of: "\"") else {
                    problems.append(PropertyListError(file: path, line: lineNumber, message: "#include needs a quoted path: #include \"Shared.xcconfig\""))
                    continue
                }
                let included = String(trimmed[trimmed.index(after: open)..<close])
                if included.hasPrefix("<") { continue }  // <DEVELOPER_DIR>/…: Xcode's own files
                read(XcodeProject.join(directory, included), includedFrom: (path, lineNumber), stack: stack + [standardized], optional: isOptional)
                continue
            }
            if let comment = line.range(of: "//") { line = line[..<comment.lowerBound] }
            let content = line.trimmingCharacters(in: .whitespaces)
            if content.isEmpty { continue }
            guard let equals = content.firstIndex(of: "=") else {
                problems.append(PropertyListError(file: path, line: lineNumber, message: "expected NAME = value, found \"\(content)\""))
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
                problems.append(PropertyListError(file: path, line: lineNumber, message: "\"\(name)\" is not a build setting name"))
                continue
            }
            assignments.append(BuildSettingAssignment(name: name, conditions: conditions, value: value, origin: "\(path):\(lineNumber)"))
        }
    }
}
