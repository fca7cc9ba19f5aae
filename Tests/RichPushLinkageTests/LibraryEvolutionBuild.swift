#if os(Linux)
import Foundation
import RichPushTestSupport

/// The extension-side modules built the way a binary framework (XCFramework) is built: with
/// library evolution, a textual `.swiftinterface` and a symbol graph, by the same `swiftc` that
/// builds the package, each interface then type-checked on its own with
/// `-typecheck-module-from-interface` (only the interfaces on the search path), as a client of
/// the binary framework would load it.
///
/// Built once per test process (about 5 s on two cores) and shared by the tests that read it.
struct LibraryEvolutionBuild: Sendable {
    /// The modules, in dependency order: the extension side, and the stand-in the bridge builds
    /// against on Linux.
    static let modules = ["RichPushCore", "RichPushExtension", "UserNotificationsStandIn", "IntentsStandIn", "RichPushNotificationService"]

    /// What compiling or checking one module said.
    struct Step: Sendable {
        /// The exit status.
        var status: Int32
        /// `file:line:col: warning|error: message` lines, without the one Linux-only warning that
        /// Foundation has no library evolution (Apple's Foundation has it).
        var diagnostics: [String]
    }

    /// Where the modules, interfaces and symbol graphs are.
    let directory: URL
    /// The compile of each module (`-emit-module -enable-library-evolution`).
    let builds: [String: Step]
    /// `-typecheck-module-from-interface` of each module's `.swiftinterface`.
    let interfaceChecks: [String: Step]

    /// The `.swiftinterface` of a module.
    func interface(_ module: String) -> URL { directory.appendingPathComponent("interfaces/\(module).swiftinterface") }

    /// The symbol graph of a module.
    func symbolGraph(_ module: String) -> URL { directory.appendingPathComponent("symbolgraphs/\(module).symbols.json") }

    private static let once = Task<LibraryEvolutionBuild, any Error> {
        try await build(modules: modules, sourcesRoot: Fixtures.packageRoot.appendingPathComponent("Sources"))
    }

    /// The shared build.
    static func shared() async throws -> LibraryEvolutionBuild { try await once.value }

    /// Builds `modules` (each from `sourcesRoot/<name>/**/*.swift`) in a fresh directory.
    static func build(modules: [String], sourcesRoot: URL) async throws -> LibraryEvolutionBuild {
        let directory = try Fixtures.temporaryDirectory("richpush-library-evolution")
        let interfaces = directory.appendingPathComponent("interfaces")
        let graphs = directory.appendingPathComponent("symbolgraphs")
        let shims = directory.appendingPathComponent("shims/CCurl")
        for folder in [interfaces, graphs, shims] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        // SwiftPM makes this module map for the C target; here it is written by hand.
        let curlHeader = Fixtures.packageRoot.appendingPathComponent("Sources/CCurl/include/CCurl.h").path
        try Data("module CCurl {\n  header \"\(curlHeader)\"\n  link \"curl\"\n  export *\n}\n".utf8)
            .write(to: shims.appendingPathComponent("module.modulemap"))
        let search = searchArguments(directory)

        var builds: [String: Step] = [:]
        for module in modules {
            let sources = try swiftFiles(in: sourcesRoot.appendingPathComponent(module))
            // At a lower CPU priority: a background job beside the suites that time their work.
            let run = try await ChildProcess(
                "nice",
                [
                    "-n", "10", "swiftc", "-emit-module", "-wmo", "-parse-as-library", "-swift-version", "6", "-enable-upcoming-feature", "ExistentialAny",
                    "-enable-library-evolution", "-no-verify-emitted-module-interface", "-package-name", "richpush", "-module-name", module,
                    "-emit-module-path", directory.appendingPathComponent("\(module).swiftmodule").path,
                    "-emit-module-interface-path", interfaces.appendingPathComponent("\(module).swiftinterface").path,
                    "-emit-symbol-graph", "-emit-symbol-graph-dir", graphs.path,
                    "-module-cache-path", directory.appendingPathComponent("cache").path, "-I", directory.path,
                ] + search + sources
            ).run(timeout: 300)
            builds[module] = Step(status: run.status, diagnostics: diagnostics(run.stdout + run.stderr))
        }
        var checks: [String: Step] = [:]
        for module in modules {
            let run = try await ChildProcess(
                "nice",
                [
                    "-n", "10", "swiftc", "-frontend", "-typecheck-module-from-interface", interfaces.appendingPathComponent("\(module).swiftinterface").path,
                    "-module-name", module, "-I", interfaces.path,
                    "-module-cache-path", directory.appendingPathComponent("interface-cache").path,
                ] + search
            ).run(timeout: 300)
            checks[module] = Step(status: run.status, diagnostics: diagnostics(run.stdout + run.stderr))
        }
        return LibraryEvolutionBuild(directory: directory, builds: builds, interfaceChecks: checks)
    }

    /// The search paths of the C shims the extension side imports on Linux (libcurl's module map,
    /// written into `directory`, and libcrypto's), for the builds and for their clients.
    static func searchArguments(_ directory: URL) -> [String] {
        ["-I", directory.appendingPathComponent("shims/CCurl").path, "-I", Fixtures.packageRoot.appendingPathComponent("Sources/COpenSSL").path]
    }

    /// Every `.swift` file under `folder`, sorted.
    static func swiftFiles(in folder: URL) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { throw TestSupportError("no folder \(folder.path)") }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { folder.appendingPathComponent($0).path }
    }

    /// The diagnostic lines of compiler output, once each, without Foundation's Linux-only one.
    static func diagnostics(_ output: String) -> [String] {
        var seen: [String] = []
        for line in output.split(separator: "\n").map(String.init)
        where (line.contains(": warning: ") || line.contains(": error: ") || line.hasPrefix("error: ") || line.hasPrefix("warning: "))
            && !line.contains("was not compiled with library evolution support") && !seen.contains(line)
        {
            seen.append(line)
        }
        return seen
    }
}
#endif
