import Foundation

/// A parsed `.xcodeproj`: its `project.pbxproj` objects, with the lookups the checks need
/// (targets, build configurations, build phases, file paths through the group tree).
public struct XcodeProject: Sendable {
    /// The `.xcodeproj` directory.
    public let path: String
    /// The directory the project's relative paths start from (`SRCROOT`: the folder holding the
    /// `.xcodeproj`, plus the project's `projectDirPath`).
    public let sourceRoot: String
    /// The project name (the `.xcodeproj` name without its extension).
    public let name: String
    /// Every object of the `objects` dictionary, by id.
    public let objects: [String: [String: PlistValue]]
    /// The `PBXProject` object.
    public let root: [String: PlistValue]
    /// The `objectVersion` Xcode wrote (56: Xcode 14/15, 77: Xcode 16).
    public let objectVersion: String?
    /// Each group-like object's parent (from the groups' `children`).
    let parents: [String: String]
    /// Each synchronized folder's exception sets → the folder.
    let exceptionOwners: [String: String]
    /// Every file the doctor reads for this project: only regular files inside the project
    /// folder, each once (`ProjectFiles`).
    public let files: ProjectFiles

    /// Reads `path/project.pbxproj`, the project folder being the one holding the `.xcodeproj`.
    ///
    /// - Parameter path: the `.xcodeproj` directory.
    /// - Throws: `PropertyListError` (file and line) when the file is missing or malformed, or
    ///   lacks the `objects` / `rootObject` a project has.
    public init(path: String) throws {
        try self.init(path: path, files: ProjectFiles(root: ProjectFiles.root(for: path)))
    }

    /// Reads `path/project.pbxproj` through `files`.
    ///
    /// - Parameters:
    ///   - path: the `.xcodeproj` directory.
    ///   - files: the project folder's files (the folder the doctor was given).
    /// - Throws: `PropertyListError` (file and line) when the file is missing, outside the
    ///   project folder or malformed, or lacks the `objects` / `rootObject` a project has.
    public init(path: String, files: ProjectFiles) throws {
        let pbxproj = (path as NSString).appendingPathComponent("project.pbxproj")
        let data = try files.read(pbxproj)
        try self.init(path: path, pbxprojData: data, files: files)
    }

    /// Parses a project from the bytes of its `project.pbxproj`.
    ///
    /// - Parameters:
    ///   - path: the `.xcodeproj` directory (its parent is the source root).
    ///   - pbxprojData: the bytes of `project.pbxproj`.
    ///   - files: the project folder's files; by default the folder holding the `.xcodeproj`.
    /// - Throws: `PropertyListError`.
    public init(path: String, pbxprojData: Data, files: ProjectFiles? = nil) throws {
        let fileName = (path as NSString).appendingPathComponent("project.pbxproj")
        let value = try OpenStepParser(fileName: fileName).parse(pbxprojData)
        guard let top = value.dictionary else {
            throw PropertyListError(file: fileName, line: 1, message: "the root is not a dictionary, so this is not an Xcode project")
        }
        guard let objectsValue = top["objects"]?.dictionary else {
            throw PropertyListError(file: fileName, line: 1, message: "has no `objects` dictionary, so this is not an Xcode project")
        }
        var objects: [String: [String: PlistValue]] = [:]
        objects.reserveCapacity(objectsValue.count)
        for (id, object) in objectsValue {
            if let d = object.dictionary { objects[id] = d }
        }
        guard let rootID = top["rootObject"]?.string, let root = objects[rootID], root["isa"]?.string == "PBXProject" else {
            throw PropertyListError(file: fileName, line: 1, message: "`rootObject` names no PBXProject object, so this is not an Xcode project")
        }
        var parents: [String: String] = [:]
        var exceptionOwners: [String: String] = [:]
        for (id, object) in objects {
            for child in object["children"]?.strings ?? [] { parents[child] = id }
            for exception in object["exceptions"]?.strings ?? [] { exceptionOwners[exception] = id }
        }
        self.path = path
        self.files = files ?? ProjectFiles(root: ProjectFiles.root(for: path))
        self.name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        self.objects = objects
        self.root = root
        self.parents = parents
        self.exceptionOwners = exceptionOwners
        self.objectVersion = top["objectVersion"]?.string
        let base = (path as NSString).deletingLastPathComponent
        let projectDirPath = root["projectDirPath"]?.string ?? ""
        self.sourceRoot = Self.join(base.isEmpty ? "." : base, projectDirPath)
    }

    /// The project's native targets, in the order the project lists them.
    public var targets: [NativeTarget] {
        (root["targets"]?.strings ?? []).compactMap { id in
            guard let object = objects[id], object["isa"]?.string == "PBXNativeTarget" else { return nil }
            return NativeTarget(id: id, object: object)
        }
    }

    /// The object with this id.
    /// - Parameter id: the 24-hex id.
    /// - Returns: the object, or `nil`.
    public func object(_ id: String?) -> [String: PlistValue]? {
        id.flatMap { objects[$0] }
    }

    /// The build configuration named `name` of a configuration list, else the list's default,
    /// else its first.
    ///
    /// - Parameters:
    ///   - listID: the `XCConfigurationList` id.
    ///   - name: the wanted configuration (`Release`).
    /// - Returns: the configuration's id and object, or `nil` when the list has none.
    public func configuration(inList listID: String?, named name: String) -> (id: String, object: [String: PlistValue])? {
        guard let list = object(listID) else { return nil }
        let ids = list["buildConfigurations"]?.strings ?? []
        let configurations = ids.compactMap { id in object(id).map { (id: id, object: $0) } }
        if let match = configurations.first(where: { $0.object["name"]?.string == name }) { return match }
        if let fallback = list["defaultConfigurationName"]?.string, let match = configurations.first(where: { $0.object["name"]?.string == fallback }) {
            return match
        }
        return configurations.first
    }

    /// The file-system path of a file reference or group, following its `sourceTree` and the
    /// group tree; `nil` for paths relative to the build products or an SDK.
    ///
    /// - Parameter id: a `PBXFileReference`, `PBXGroup`, `PBXVariantGroup` or
    ///   `PBXFileSystemSynchronizedRootGroup` id.
    /// - Returns: the path (under `sourceRoot` unless absolute).
    public func filePath(of id: String) -> String? {
        filePath(of: id, depth: 0)
    }

    private func filePath(of id: String, depth: Int) -> String? {
        guard depth < 64, let object = objects[id] else { return nil }
        let path = object["path"]?.string ?? ""
        switch object["sourceTree"]?.string ?? "<group>" {
        case "<absolute>":
            return path
        case "SOURCE_ROOT":
            return Self.join(sourceRoot, path)
        case "<group>":
            guard let parent = parents[id] else { return Self.join(sourceRoot, path) }
            guard let parentPath = filePath(of: parent, depth: depth + 1) else { return nil }
            return Self.join(parentPath, path)
        default:
            return nil
        }
    }

    /// The `PBXFileSystemSynchronizedRootGroup` whose `exceptions` list an exception set.
    /// - Parameter id: a `PBXFileSystemSynchronizedBuildFileExceptionSet` id.
    /// - Returns: the folder's id, or `nil`.
    public func synchronizedGroup(owningException id: String) -> String? {
        exceptionOwners[id]
    }

    /// Joins a path to a base unless it is absolute.
    /// - Parameters:
    ///   - base: the directory.
    ///   - path: a relative or absolute path.
    /// - Returns: the joined path.
    public static func join(_ base: String, _ path: String) -> String {
        if path.hasPrefix("/") { return path }
        if path.isEmpty { return base }
        return (base as NSString).appendingPathComponent(path)
    }
}
