import Foundation

/// Builds the `BuildSettings` stack of a target's configuration from its project: defaults, the
/// project level and the target level, each with its `.xcconfig` (`baseConfigurationReference`,
/// or Xcode 16's `baseConfigurationReferenceAnchor` + `…RelativePath`).
public struct TargetSettingsBuilder: Sendable {
    /// The project.
    public let project: XcodeProject

    /// Every setting name any configuration of the project sets in its `buildSettings`.
    let namesSetInProject: Set<String>

    /// Makes a builder.
    /// - Parameter project: the project the targets belong to.
    public init(project: XcodeProject) {
        self.project = project
        var names = Set<String>()
        for object in project.objects.values where object["isa"]?.string == "XCBuildConfiguration" {
            for key in object["buildSettings"]?.dictionary?.keys ?? [:].keys { names.insert(BuildSettingAssignment.splitKey(key).name) }
        }
        namesSetInProject = names
    }

    /// The settings of `target` in the configuration named `configuration` (else the list's
    /// default), and the problems met reading its `.xcconfig` files.
    ///
    /// - Parameters:
    ///   - target: the target.
    ///   - configuration: the configuration name, normally `Release`.
    /// - Returns: the settings, the configuration actually used, and xcconfig problems.
    public func settings(for target: NativeTarget, configuration: String) -> (settings: BuildSettings, configuration: String?, problems: [PropertyListError]) {
        var problems: [PropertyListError] = []
        let targetConfiguration = project.configuration(inList: target.buildConfigurationList, named: configuration)
        let used = targetConfiguration?.object["name"]?.string ?? configuration
        let projectConfiguration = project.configuration(inList: project.root["buildConfigurationList"]?.string, named: used)

        var levels: [[BuildSettingAssignment]] = [defaults(for: target, configuration: used)]
        for configurationObject in [projectConfiguration?.object, targetConfiguration?.object] {
            guard let configurationObject else { continue }
            if let xcconfig = xcconfigPath(of: configurationObject) {
                let file = XCConfigFile(path: xcconfig, files: project.files)
                problems += file.problems
                levels += file.assignments.map { [$0] }
            }
            levels.append(Self.assignments(configurationObject["buildSettings"]?.dictionary ?? [:], origin: "\(project.name).xcodeproj (\(used))"))
        }
        // Names set for other targets or configurations (buildSettings, this target's other .xcconfig files).
        var elsewhere = namesSetInProject
        for listID in [project.root["buildConfigurationList"]?.string, target.buildConfigurationList] {
            for id in project.object(listID)?["buildConfigurations"]?.strings ?? [] {
                guard let other = project.object(id), other["name"]?.string != used else { continue }
                if let xcconfig = xcconfigPath(of: other) { elsewhere.formUnion(XCConfigFile(path: xcconfig, files: project.files).assignments.map(\.name)) }
            }
        }
        let context = ["sdk": "iphoneos", "config": used, "arch": "arm64", "variant": "normal"]
        return (BuildSettings(levels: levels, context: context, setElsewhere: elsewhere), targetConfiguration == nil ? nil : used, problems)
    }

    /// The path of a configuration's base `.xcconfig`, or `nil` when it has none.
    func xcconfigPath(of configuration: [String: PlistValue]) -> String? {
        if let reference = configuration["baseConfigurationReference"]?.string {
            return project.filePath(of: reference)
        }
        if let anchor = configuration["baseConfigurationReferenceAnchor"]?.string,
            let relative = configuration["baseConfigurationReferenceRelativePath"]?.string,
            let folder = project.filePath(of: anchor)
        {
            return XcodeProject.join(folder, relative)
        }
        return nil
    }

    /// A `buildSettings` dictionary as one level (array values joined with spaces, as Xcode does).
    static func assignments(_ settings: [String: PlistValue], origin: String) -> [BuildSettingAssignment] {
        settings.keys.sorted().compactMap { key in
            guard let raw = settings[key] else { return nil }
            let value: String
            switch raw {
            case .string(let s): value = s
            case .array(let a): value = a.compactMap(\.string).joined(separator: " ")
            default: return nil
            }
            let (name, conditions) = BuildSettingAssignment.splitKey(key)
            return BuildSettingAssignment(name: name, conditions: conditions, value: value, origin: origin)
        }
    }

    /// The defaults Xcode provides that the checks rely on.
    func defaults(for target: NativeTarget, configuration: String) -> [BuildSettingAssignment] {
        let origin = "Xcode default"
        let isApp = target.isApplication
        let values: [(String, String)] = [
            ("TARGET_NAME", target.name), ("TARGETNAME", target.name), ("PROJECT_NAME", project.name),
            ("PROJECT_DIR", project.sourceRoot), ("SRCROOT", project.sourceRoot), ("SOURCE_ROOT", project.sourceRoot),
            ("PROJECT_FILE_PATH", project.path), ("CONFIGURATION", configuration), ("PLATFORM_NAME", "iphoneos"),
            ("EFFECTIVE_PLATFORM_NAME", "-iphoneos"), ("PRODUCT_NAME", "$(TARGET_NAME)"),
            ("PRODUCT_MODULE_NAME", "$(PRODUCT_NAME:c99extidentifier)"), ("EXECUTABLE_NAME", "$(PRODUCT_NAME)"),
            ("PRODUCT_BUNDLE_PACKAGE_TYPE", isApp ? "APPL" : "XPC!"), ("DEVELOPMENT_LANGUAGE", "en"),
            ("WRAPPER_EXTENSION", isApp ? "app" : "appex"), ("FULL_PRODUCT_NAME", "$(PRODUCT_NAME).$(WRAPPER_EXTENSION)"),
        ]
        return values.map { BuildSettingAssignment(name: $0.0, value: $0.1, origin: origin) }
    }
}
