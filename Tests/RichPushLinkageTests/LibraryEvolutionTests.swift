#if os(Linux)
import Foundation
import RichPushTestSupport
import Testing

/// The extension side can ship as a binary framework: built with library evolution, its textual
/// interfaces type-check on their own, and no type has its module's name (which breaks them).
@Suite("Library evolution: the extension side as a binary framework")
struct LibraryEvolutionTests {
    @Test(arguments: LibraryEvolutionBuild.modules)
    func theModuleBuildsWithoutWarningsAndItsInterfaceTypeChecks(module: String) async throws {
        let build = try await LibraryEvolutionBuild.shared()
        let compiled = try #require(build.builds[module])
        #expect(compiled.status == 0, "\(compiled.diagnostics.joined(separator: "\n"))")
        #expect(compiled.diagnostics.isEmpty, "\(compiled.diagnostics.joined(separator: "\n"))")
        let checked = try #require(build.interfaceChecks[module])
        #expect(checked.status == 0, "\(checked.diagnostics.joined(separator: "\n"))")
        #expect(checked.diagnostics.isEmpty, "\(checked.diagnostics.joined(separator: "\n"))")
        #expect(FileManager.default.fileExists(atPath: build.interface(module).path))
    }

    @Test(arguments: LibraryEvolutionBuild.modules)
    func noTypeHasItsModulesName(module: String) async throws {
        let build = try await LibraryEvolutionBuild.shared()
        let graph = try JSONSerialization.jsonObject(with: Data(contentsOf: build.symbolGraph(module))) as? [String: Any]
        let symbols = try #require(graph?["symbols"] as? [[String: Any]])
        let topLevelNames = symbols.compactMap { $0["pathComponents"] as? [String] }.filter { $0.count == 1 }.map { $0[0] }
        #expect(!topLevelNames.isEmpty)
        #expect(!topLevelNames.contains(module))
    }

    /// The control: a class with its module's name (as `RichPushNotificationService` was) gives an
    /// interface that does not type-check, so the check above can fail.
    @Test func aClassNamedLikeItsModuleBreaksTheInterfaceTheTestWouldCatch() async throws {
        let sources = try Fixtures.temporaryDirectory("richpush-shadowed")
        defer { try? FileManager.default.removeItem(at: sources) }
        let folder = sources.appendingPathComponent("Shadowed")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(
            """
            public struct Settings { public init() {} }
            open class Shadowed { public init() {}; open func use(_ settings: Settings) {} }

            """.utf8
        ).write(to: folder.appendingPathComponent("Shadowed.swift"))
        let build = try await LibraryEvolutionBuild.build(modules: ["Shadowed"], sourcesRoot: sources)
        defer { try? FileManager.default.removeItem(at: build.directory) }
        let compiled = try #require(build.builds["Shadowed"])
        #expect(compiled.diagnostics.contains { $0.contains("shadows module 'Shadowed'") })
        let checked = try #require(build.interfaceChecks["Shadowed"])
        #expect(checked.status != 0)
        #expect(checked.diagnostics.contains { $0.contains("'Settings' is not a member type of class 'Shadowed.Shadowed'") })
    }
}
#endif
