import Foundation

/// Reads everything the checks need from a project: each target's facts, and which app embeds
/// which extension through which copy phase.
public struct ProjectAnalysis: Sendable {
    /// One extension product in one app's copy phase.
    public struct Embedding: Sendable, Hashable {
        /// The app target id.
        public let app: String
        /// The extension target id.
        public let appExtension: String
        /// The copy phase's name (`Embed Foundation Extensions`).
        public let phaseName: String
        /// `runOnlyForDeploymentPostprocessing = 1`: "Copy only when installing".
        public let onlyWhenInstalling: Bool
    }

    /// The project.
    public let project: XcodeProject
    /// Every native target's facts, in the project's order.
    public private(set) var targets: [TargetFacts] = []
    /// The embeddings found.
    public private(set) var embeddings: [Embedding] = []
    /// Target id → the ids of the targets it depends on.
    public private(set) var dependencies: [String: Set<String>] = [:]
    /// The configuration read (`Release`).
    public let configuration: String

    /// Source files scanned in a synchronized folder at most (a guard against huge trees).
    static let maximumFolderFiles = 20_000

    /// Analyses a project.
    /// - Parameters:
    ///   - project: the parsed project.
    ///   - configuration: the configuration whose settings are checked (Release).
    public init(project: XcodeProject, configuration: String = "Release") {
        self.project = project
        self.configuration = configuration
        let builder = TargetSettingsBuilder(project: project)
        let nativeTargets = project.targets
        var productOwner: [String: String] = [:]
        for target in nativeTargets {
            if let product = target.productReference { productOwner[product] = target.id }
        }
        for target in nativeTargets {
            targets.append(Self.facts(for: target, in: project, builder: builder, configuration: configuration))
            dependencies[target.id] = Set(target.dependencies.compactMap { dependencyTarget($0) })
            for phaseID in target.buildPhases {
                guard let phase = project.object(phaseID), phase["isa"]?.string == "PBXCopyFilesBuildPhase",
                    phase["dstSubfolderSpec"]?.string == "13"
                else { continue }
                for buildFile in phase["files"]?.strings ?? [] {
                    guard let reference = project.object(buildFile)?["fileRef"]?.string, let owner = productOwner[reference] else { continue }
                    embeddings.append(
                        Embedding(
                            app: target.id, appExtension: owner, phaseName: phase["name"]?.string ?? "Copy Files (Plugins)",
                            onlyWhenInstalling: phase["runOnlyForDeploymentPostprocessing"]?.string == "1"))
                }
            }
        }
        let names = Dictionary(nativeTargets.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        for index in targets.indices {
            let id = targets[index].target.id
            targets[index].embeddedIn = embeddings.filter { $0.appExtension == id }.compactMap { names[$0.app] }
        }
    }

    /// Every build configuration of the project, in its order (`Debug`, `Release`, and any
    /// other): each can be built and installed, so each is checked.
    /// - Parameter project: the project.
    /// - Returns: the names; `["Release"]` when the project lists none.
    public static func configurationNames(of project: XcodeProject) -> [String] {
        let list = project.object(project.root["buildConfigurationList"]?.string)
        var names: [String] = []
        for id in list?["buildConfigurations"]?.strings ?? [] {
            guard let name = project.object(id)?["name"]?.string, !names.contains(name) else { continue }
            names.append(name)
        }
        return names.isEmpty ? ["Release"] : names
    }

    /// The target a `PBXTargetDependency` points at.
    func dependencyTarget(_ id: String) -> String? {
        guard let dependency = project.object(id) else { return nil }
        if let target = dependency["target"]?.string { return target }
        return project.object(dependency["targetProxy"]?.string)?["remoteGlobalIDString"]?.string
    }

    /// The facts of the target with this id.
    /// - Parameter id: a target id.
    /// - Returns: its facts, or `nil`.
    public func facts(_ id: String) -> TargetFacts? {
        targets.first { $0.target.id == id }
    }

    static func facts(for target: NativeTarget, in project: XcodeProject, builder: TargetSettingsBuilder, configuration: String) -> TargetFacts {
        let (settings, used, problems) = builder.settings(for: target, configuration: configuration)
        var findings: [DoctorFinding] = problems.map { problem in
            DoctorFinding(
                problem.message.contains("no such file") ? .fileMissing : .projectUnreadable, target: target.name, problem.description,
                fix: problem.description.contains("/Pods/")
                    ? "run `pod install` first (the configuration's .xcconfig comes from CocoaPods)"
                    : "fix the .xcconfig file or the configuration's base configuration")
        }
        var facts = TargetFacts(
            target: target, kind: .other, configuration: used, settings: settings, bundleID: nil, deploymentTarget: nil, infoPlistPath: nil,
            infoPlist: [:], entitlementsPath: nil, entitlements: nil, sourceFiles: [], sourceFilesNamed: 0, packageProducts: [], embeddedIn: [],
            findings: [])
        facts.files = project.files
        let interesting = target.isApplication || target.isAppExtension
        guard interesting else {
            facts.findings = []
            return facts
        }
        let sourceRoot = project.sourceRoot

        // Info.plist: the file, plus INFOPLIST_KEY_* when Xcode generates it.
        if settings.isSet("INFOPLIST_FILE") {
            switch settings.resolve("INFOPLIST_FILE") {
            case .value(let path) where !path.isEmpty:
                let full = XcodeProject.join(sourceRoot, path)
                facts.infoPlistPath = full
                if let (dictionary, finding) = readDictionary(full, what: "Info.plist", target: target.name, files: project.files) {
                    facts.infoPlist = dictionary
                    if let finding { findings.append(finding) }
                } else {
                    findings.append(missingFile(full, what: "Info.plist (INFOPLIST_FILE)", target: target.name))
                }
            case .value:
                break
            case .unresolved(let reason):
                findings.append(unresolved("INFOPLIST_FILE", reason, target: target.name))
            }
        }
        if settings.resolve("GENERATE_INFOPLIST_FILE").value.flatMap({ PlistValue.string($0).truthValue }) == true {
            for name in settings.names(withPrefix: "INFOPLIST_KEY_") {
                let key = String(name.dropFirst("INFOPLIST_KEY_".count))
                if facts.infoPlist[key] == nil, let value = settings.resolve(name).value { facts.infoPlist[key] = .string(value) }
            }
        }

        // Bundle id and deployment target.
        if let written = facts.infoPlist["CFBundleIdentifier"]?.string {
            facts.bundleID = settings.expand(written)
        } else {
            facts.bundleID = settings.resolve("PRODUCT_BUNDLE_IDENTIFIER")
        }
        facts.deploymentTarget = settings.isSet("IPHONEOS_DEPLOYMENT_TARGET") ? settings.resolve("IPHONEOS_DEPLOYMENT_TARGET") : nil

        // Entitlements.
        if settings.isSet("CODE_SIGN_ENTITLEMENTS") {
            switch settings.resolve("CODE_SIGN_ENTITLEMENTS") {
            case .value(let path) where !path.isEmpty:
                let full = XcodeProject.join(sourceRoot, path)
                facts.entitlementsPath = full
                if let (dictionary, finding) = readDictionary(full, what: "entitlements", target: target.name, files: project.files) {
                    facts.entitlements = dictionary
                    if let finding { findings.append(finding) }
                } else {
                    findings.append(missingFile(full, what: "entitlements (CODE_SIGN_ENTITLEMENTS)", target: target.name))
                }
            case .value:
                break
            case .unresolved(let reason):
                findings.append(unresolved("CODE_SIGN_ENTITLEMENTS", reason, target: target.name))
            }
        }

        // Linked packages and sources.
        facts.packageProducts = target.packageProductDependencies.compactMap { project.object($0)?["productName"]?.string }
        if target.isAppExtension {
            let (named, onDisk) = sourceFiles(of: target, in: project)
            facts.sourceFilesNamed = named
            facts.sourceFiles = onDisk
        }
        facts.kind = kind(of: facts)
        facts.findings = findings
        return facts
    }

    static func kind(of facts: TargetFacts) -> TargetFacts.Kind {
        let target = facts.target
        if target.isApplication {
            let sdk = facts.settings.resolve("SDKROOT").value ?? ""
            let platforms = facts.settings.resolve("SUPPORTED_PLATFORMS").value ?? ""
            if sdk.hasPrefix("iphoneos") || platforms.contains("iphoneos") || sdk.isEmpty || (sdk == "auto" && platforms.isEmpty) {
                return .app
            }
            return .otherPlatformApp
        }
        guard target.isAppExtension else { return .other }
        let point = facts.extensionPoint.map { facts.settings.expand($0).value ?? $0 } ?? ""
        if point == NotificationExtensionPoint.service { return .notificationService }
        if point == NotificationExtensionPoint.content { return .notificationContent }
        if point.hasPrefix("com.apple.usernotifications") { return point.contains("content") ? .notificationContent : .notificationService }
        // A wrong or missing extension point: the sources tell what it was meant to be.
        for file in facts.sourceFiles {
            guard let text = facts.sourceText(file) else { continue }
            if text.contains("UNNotificationServiceExtension") || text.contains("RichPushServiceExtension") { return .notificationService }
            if text.contains("UNNotificationContentExtension") { return .notificationContent }
        }
        return .appExtension
    }

    /// The source files a target compiles: its Sources phase, and the Swift / Objective-C files of
    /// its Xcode 16 synchronized folders (less their membership exceptions).
    static func sourceFiles(of target: NativeTarget, in project: XcodeProject) -> (named: Int, onDisk: [String]) {
        var paths: [String] = []
        for phaseID in target.buildPhases {
            guard let phase = project.object(phaseID), phase["isa"]?.string == "PBXSourcesBuildPhase" else { continue }
            for buildFile in phase["files"]?.strings ?? [] {
                guard let reference = project.object(buildFile)?["fileRef"]?.string, let path = project.filePath(of: reference) else { continue }
                paths.append(path)
            }
        }
        for groupID in target.synchronizedGroups {
            guard let group = project.object(groupID), let folder = project.filePath(of: groupID) else { continue }
            var excluded = Set<String>()
            for exceptionID in group["exceptions"]?.strings ?? [] {
                guard let exception = project.object(exceptionID), exception["target"]?.string == target.id else { continue }
                for member in exception["membershipExceptions"]?.strings ?? [] { excluded.insert(member) }
            }
            for relative in project.files.files(under: folder, limit: maximumFolderFiles) {
                let ext = (relative as NSString).pathExtension
                guard ["swift", "m", "mm"].contains(ext), !excluded.contains(relative) else { continue }
                paths.append(XcodeProject.join(folder, relative))
            }
        }
        // Files of other targets' synchronized folders that an exception set makes members of this one.
        for (id, object) in project.objects where object["isa"]?.string == "PBXFileSystemSynchronizedBuildFileExceptionSet" {
            guard object["target"]?.string == target.id, let group = project.synchronizedGroup(owningException: id),
                !target.synchronizedGroups.contains(group), let folder = project.filePath(of: group)
            else { continue }
            for member in object["membershipExceptions"]?.strings ?? [] where ["swift", "m", "mm"].contains((member as NSString).pathExtension) {
                paths.append(XcodeProject.join(folder, member.hasPrefix("/") ? String(member.dropFirst()) : member))
            }
        }
        let onDisk = paths.filter { project.files.isRegularFile($0) }
        return (paths.count, onDisk)
    }

    /// Reads a plist that must be a dictionary: `nil` when the file is missing; otherwise the
    /// dictionary (empty when malformed) and a finding for a malformed one.
    static func readDictionary(_ path: String, what: String, target: String, files: ProjectFiles) -> ([String: PlistValue], DoctorFinding?)? {
        switch files.place(path) {
        case .missing:
            return nil
        case .outside:
            return (
                [:],
                DoctorFinding(
                    .projectUnreadable, target: target,
                    "the \(what) \(path) is outside the project folder \(files.root) (an absolute path, a ../ path or a symbolic link leads out of it), so it was not read",
                    fix: "keep the project's files inside its folder (or run richpush doctor on the folder that holds them)")
            )
        case .inside:
            break
        }
        do {
            guard let dictionary = try PropertyListFile.read(path, files: files).dictionary else {
                return ([:], DoctorFinding(.projectUnreadable, target: target, "\(path): the \(what) is not a dictionary", fix: "make its root a <dict>"))
            }
            return (dictionary, nil)
        } catch let error as PropertyListError {
            return (
                [:],
                DoctorFinding(
                    .projectUnreadable, target: target,
                    "the \(what) \(error.line > 0 || error.message.contains("property list") ? "is malformed" : "cannot be read"): \(error)",
                    fix: "fix the file at that line (Xcode's plist editor shows it)")
            )
        } catch {
            return ([:], DoctorFinding(.projectUnreadable, target: target, "\(path): \(error)", fix: "fix the file"))
        }
    }

    static func missingFile(_ path: String, what: String, target: String) -> DoctorFinding {
        DoctorFinding(
            .fileMissing, target: target, "the \(what) \(path) is not on disk, so the checks that need it were skipped",
            fix: "check the path in the target's build settings")
    }

    static func unresolved(_ setting: String, _ reason: String, target: String) -> DoctorFinding {
        DoctorFinding(
            .settingUnresolved, target: target, "\(setting) cannot be resolved: \(reason); the checks that need it were skipped",
            fix: "set it in the target or its .xcconfig")
    }
}

/// The extension points of notification extensions (Apple: `NSExtensionPointIdentifier`).
public enum NotificationExtensionPoint {
    /// Notification Service Extension.
    public static let service = "com.apple.usernotifications.service"
    /// Notification Content Extension.
    public static let content = "com.apple.usernotifications.content-extension"
}
