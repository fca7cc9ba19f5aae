#if os(Linux)  // ELF tools (readelf, ldd, nm); macOS would need otool
import Foundation
import RichPushTestSupport
import Testing

/// The extension side (RichPushCore, RichPushExtension, the bridge) links nothing server-side:
/// no HTTP server, no database, no provider or CLI code — checked in the manifest's dependency
/// closure and in the built binary.
@Suite struct ExtensionLinkageTests {
    /// The extension-side targets an app's extension links.
    static let extensionTargets = ["RichPushCore", "RichPushExtension", "RichPushNotificationService", "UserNotificationsStandIn"]

    /// The built `RichPushLinkageProbe` (an executable made only of the extension side).
    static func probeBinary() throws -> URL {
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("RichPushLinkageProbe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        let fallback = Fixtures.packageRoot.appendingPathComponent(".build/debug/RichPushLinkageProbe")
        guard FileManager.default.isExecutableFile(atPath: fallback.path) else {
            throw TestSupportError("RichPushLinkageProbe is not built; run `swift build --build-tests` first")
        }
        return fallback
    }

    @Test func theExtensionSideBinaryLinksNoServerLibraryOrModule() async throws {
        let inspection = try await LinkageInspection.of(try Self.probeBinary())
        #expect(inspection.violations == [])
        // It is the extension side that was inspected: the bridge and the pipeline are in it.
        #expect(inspection.symbols.contains { $0.hasPrefix("$s") && $0.contains("27RichPushNotificationService") })
        #expect(inspection.symbols.contains { $0.hasPrefix("$s") && $0.contains("17RichPushExtension") })
        #expect(inspection.needed.contains { $0.hasPrefix("libcurl") })
    }

    @Test func theCheckFlagsABinaryThatUsesSQLiteAndMicrohttpd() async throws {
        let dir = try Fixtures.temporaryDirectory("richpush-linkage")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("server.c")
        try Data(
            """
            int sqlite3_open(const char *name, void **db);
            void *MHD_start_daemon(unsigned int flags, unsigned short port, ...);
            int open_store(void) { void *db; MHD_start_daemon(0, 8080, 0); return sqlite3_open("stats.db", &db); }
            """.utf8
        ).write(to: source)
        let object = dir.appendingPathComponent("libserver.so")
        // With libsqlite3 as a NEEDED entry where the runtime library exists, else symbols only.
        let withLibrary = try await ChildProcess("cc", ["-shared", "-fPIC", "-o", object.path, source.path, "-Wl,--no-as-needed", "-l:libsqlite3.so.0"])
            .run(timeout: 60)
        let linkedSQLite = withLibrary.status == 0
        let build = linkedSQLite ? withLibrary : try await ChildProcess("cc", ["-shared", "-fPIC", "-o", object.path, source.path]).run(timeout: 60)
        try #require(build.status == 0, "cc failed: \(build.stderr)")

        let violations = try await LinkageInspection.of(object).violations
        #expect(violations.contains { $0.hasPrefix("has 1 sqlite3_* symbols") })
        #expect(violations.contains { $0.hasPrefix("has 1 MHD_* symbols") })
        if linkedSQLite {
            #expect(violations.contains { $0 == "links libsqlite3.so.0 directly (NEEDED)" })
        }
    }

    @Test func theCheckFlagsTheCommandLineBinaryWhichHoldsTheHostAndCLIModules() async throws {
        let binary = Fixtures.richpushBinary
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "richpush is not built at \(binary.path)")
        let violations = try await LinkageInspection.of(binary).violations
        #expect(violations.contains { $0.contains("symbols of module RichPushCLI,") })
        #expect(violations.contains { $0.contains("symbols of module RichPushExtensionHost,") })
    }

    @Test func theManifestKeepsServerTargetsOutOfTheExtensionSide() async throws {
        let scratch = try Fixtures.temporaryDirectory("richpush-describe")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A scratch path of its own, so it never waits on the build lock of the running tests.
        let describe = try await ChildProcess(
            "swift", ["package", "--package-path", Fixtures.packageRoot.path, "--scratch-path", scratch.path, "describe", "--type", "json"]
        ).run(timeout: 300)
        try #require(describe.status == 0, "swift package describe failed: \(describe.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(describe.stdout.utf8)) as? [String: Any])
        let targets = try #require(json["targets"] as? [[String: Any]])
        var dependencies: [String: [String]] = [:]
        for target in targets {
            guard let name = target["name"] as? String else { continue }
            dependencies[name] = target["target_dependencies"] as? [String] ?? []
        }
        for root in Self.extensionTargets { #expect(dependencies[root] != nil, "\(root) is not in the manifest") }

        var closure: Set<String> = []
        var queue = Self.extensionTargets
        while let next = queue.popLast() {
            guard closure.insert(next).inserted else { continue }
            queue += dependencies[next] ?? []
        }
        let serverSide = closure.filter { name in
            ["Server", "Provider", "SQLite", "Postgres", "PQ", "MicroHTTPD", "Microhttpd", "MHD", "CLI", "ExtensionHost", "Test"]
                .contains { name.contains($0) }
        }
        #expect(serverSide.sorted() == [], "the extension side reaches \(serverSide.sorted())")
        #expect(closure.contains("CCurl"))
    }
}
#endif
