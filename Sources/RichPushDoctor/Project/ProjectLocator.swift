import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Finds the `.xcodeproj` to check from what the user gave: an `.xcodeproj`, an `.xcworkspace`
/// (its `contents.xcworkspacedata`), or a folder holding one (searched three levels down, Pods,
/// Carthage, `.build`, `node_modules` and hidden folders skipped; each real folder visited once,
/// so symbolic links cannot make the search loop or multiply). Everything it reads is inside the
/// project folder (`ProjectFiles`).
public enum ProjectLocator {
    /// What was found.
    public struct Located: Sendable, Hashable {
        /// The project to check.
        public let project: String
        /// Other projects found, not checked (say so).
        public let others: [String]
        /// The project folder (its real path): what the doctor may read (`ProjectFiles`).
        public let root: String
    }

    /// Folders never searched for projects.
    static let skipped: Set<String> = ["Pods", "Carthage", ".build", "node_modules", "DerivedData", "build", "vendor", "SourcePackages"]

    /// Locates the project.
    ///
    /// - Parameter path: an `.xcodeproj`, an `.xcworkspace` or a folder.
    /// - Returns: the project and the others found.
    /// - Throws: `DoctorFailure` when there is none, naming XcodeGen / Tuist when their manifest is there.
    public static func locate(_ path: String) throws -> Located {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DoctorFailure(.projectNotFound, "\(path): no such file or folder")
        }
        let trimmed = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        let files = ProjectFiles(root: ProjectFiles.root(for: trimmed))
        if trimmed.hasSuffix(".xcodeproj") { return Located(project: trimmed, others: [], root: files.root) }
        if trimmed.hasSuffix(".xcworkspace") { return try fromWorkspace(trimmed, files: files) }
        guard isDirectory.boolValue else {
            if (trimmed as NSString).lastPathComponent == "project.pbxproj" {
                return Located(project: (trimmed as NSString).deletingLastPathComponent, others: [], root: files.root)
            }
            throw DoctorFailure(.projectNotFound, "\(path) is not an .xcodeproj, an .xcworkspace or a folder holding one")
        }
        var visited = Set<String>()
        let found = search(trimmed, depth: 0, files: files, visited: &visited)
        guard let first = found.first else {
            throw DoctorFailure(
                .projectNotFound,
                generatorHint(trimmed, files: files) ?? "\(path): no .xcodeproj found (looked 3 folders deep); give the path of your .xcodeproj")
        }
        return Located(project: first, others: Array(found.dropFirst()), root: files.root)
    }

    /// The projects under `folder`, breadth first, sorted by name at each level; each real folder
    /// once (`visited`).
    static func search(_ folder: String, depth: Int, files: ProjectFiles, visited: inout Set<String>) -> [String] {
        guard depth < 3, case .inside(let real) = files.place(folder), visited.insert(real).inserted, let entries = files.entries(folder) else { return [] }
        var here: [String] = []
        var subfolders: [String] = []
        for entry in entries {
            let full = (folder as NSString).appendingPathComponent(entry)
            if entry.hasSuffix(".xcodeproj") {
                if files.isRegularFile((full as NSString).appendingPathComponent("project.pbxproj")) { here.append(full) }
                continue
            }
            guard !entry.hasPrefix("."), !skipped.contains(entry), !entry.hasSuffix(".xcworkspace") else { continue }
            if files.isDirectory(full) { subfolders.append(full) }
        }
        return here + subfolders.flatMap { search($0, depth: depth + 1, files: files, visited: &visited) }
    }

    /// The projects a workspace names (`<FileRef location = "group:App.xcodeproj">`), Pods' left out.
    static func fromWorkspace(_ workspace: String, files: ProjectFiles) throws -> Located {
        let file = (workspace as NSString).appendingPathComponent("contents.xcworkspacedata")
        let data: Data
        do {
            data = try files.read(file)
        } catch {
            throw DoctorFailure(.projectUnreadable, error.description)
        }
        let reader = WorkspaceReader(base: (workspace as NSString).deletingLastPathComponent)
        let parser = XMLParser(data: data)
        parser.delegate = reader
        guard parser.parse() else {
            throw DoctorFailure(
                .projectUnreadable,
                "\(file):\(parser.lineNumber): not a valid workspace (\(parser.parserError.map { "\($0.localizedDescription)" } ?? "XML error"))")
        }
        let projects = reader.projects.filter { !$0.hasSuffix("Pods.xcodeproj") && files.isDirectory($0) }
        guard let first = projects.first else {
            throw DoctorFailure(
                .projectNotFound, "\(workspace) names no .xcodeproj that is on disk inside \(files.root) (besides Pods); give the path of your .xcodeproj")
        }
        return Located(project: first, others: Array(projects.dropFirst()), root: files.root)
    }

    /// One line for a folder generated by XcodeGen or Tuist, or `nil`.
    static func generatorHint(_ folder: String, files: ProjectFiles) -> String? {
        let exists = { (name: String) in files.isRegularFile((folder as NSString).appendingPathComponent(name)) }
        if exists("project.yml") || exists("project.json") {
            return "\(folder) has an XcodeGen project.yml but no .xcodeproj: run `xcodegen generate` first, then richpush doctor on the .xcodeproj it writes"
        }
        if exists("Project.swift") || exists("Tuist/Config.swift") || exists("Tuist.swift") || exists("Workspace.swift") {
            return
                "\(folder) is a Tuist project (Project.swift) with no .xcodeproj: run `tuist generate --no-open` first, then richpush doctor on the .xcodeproj it writes"
        }
        return nil
    }
}

/// Collects `FileRef` locations of a workspace.
private final class WorkspaceReader: NSObject, XMLParserDelegate {
    let base: String
    var groups: [String] = []
    var projects: [String] = []

    init(base: String) {
        self.base = base
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        guard elementName == "FileRef" || elementName == "Group", let location = attributes["location"] else { return }
        let path = resolve(location)
        if elementName == "Group" {
            groups.append(path)
        } else if path.hasSuffix(".xcodeproj") {
            projects.append(path)
        }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if elementName == "Group", !groups.isEmpty { groups.removeLast() }
    }

    func resolve(_ location: String) -> String {
        guard let colon = location.firstIndex(of: ":") else { return XcodeProject.join(base, location) }
        let kind = location[..<colon]
        let path = String(location[location.index(after: colon)...])
        switch kind {
        case "absolute": return path
        case "group": return XcodeProject.join(groups.last ?? base, path)
        default: return XcodeProject.join(base, path)  // container:, self:
        }
    }
}
