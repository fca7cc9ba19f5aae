#if os(Linux)  // ELF tools (readelf, ldd, nm); macOS would need otool
import Foundation
import RichPushTestSupport

/// What a built binary links and defines, and which of it is server-side.
///
/// As swift-http-types' `scripts/run-linkage-test.sh` proves its core stays light: `readelf -d`
/// (direct `NEEDED` libraries), `ldd` (the whole load closure) and `nm` (symbols, defined or not).
struct LinkageInspection {
    /// Shared libraries that must never load into an extension: an HTTP server and databases.
    static let forbiddenLibraries = ["libmicrohttpd", "libsqlite3", "libpq"]
    /// C symbol prefixes of those libraries.
    static let forbiddenSymbolPrefixes = ["MHD_", "sqlite3_", "PQconnect", "PQexec", "PQfinish"]
    /// Swift modules of the other sides (mangled `<length><name>`), and the Linux-only host.
    static let forbiddenModules = ["RichPushServer", "RichPushProvider", "RichPushCLI", "RichPushExtensionHost"]

    /// Direct `NEEDED` entries.
    var needed: [String]
    /// Every library `ldd` resolves (the load closure).
    var loaded: [String]
    /// Every symbol name `nm` lists.
    var symbols: [String]

    /// Inspects a binary on a thread of its own (the tools take a while; the pool is never blocked).
    /// - Parameter binary: an executable or shared object.
    /// - Returns: the inspection.
    /// - Throws: when a tool fails.
    static func of(_ binary: URL) async throws -> LinkageInspection {
        try await OwnThread.run { try LinkageInspection(binary: binary) }
    }

    /// Inspects a binary (blocking).
    /// - Parameter binary: an executable or shared object.
    /// - Throws: when a tool fails.
    init(binary: URL) throws {
        let readelf = try ChildProcess("readelf", ["-d", "-W", binary.path]).runToCompletion(timeout: 60)
        guard readelf.status == 0 else { throw TestSupportError("readelf failed: \(readelf.stderr)") }
        needed = readelf.stdout.split(separator: "\n").compactMap { line in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        let ldd = try ChildProcess("ldd", [binary.path]).runToCompletion(timeout: 60)
        loaded = ldd.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").first.map { String($0).trimmingCharacters(in: .whitespaces) } }
        let nm = try ChildProcess("nm", ["--defined-only", binary.path]).runToCompletion(timeout: 120)
        let undefined = try ChildProcess("nm", ["--undefined-only", binary.path]).runToCompletion(timeout: 120)
        symbols = (nm.stdout + "\n" + undefined.stdout).split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
    }

    /// Every server-side library or symbol found, one sentence each; empty when the binary is clean.
    var violations: [String] {
        var found: [String] = []
        for library in Self.forbiddenLibraries {
            for name in needed where name.hasPrefix(library) { found.append("links \(name) directly (NEEDED)") }
            for name in loaded where name.hasPrefix(library) && !needed.contains(name) { found.append("loads \(name) through another library") }
        }
        for prefix in Self.forbiddenSymbolPrefixes {
            let hits = symbols.filter { $0.hasPrefix(prefix) }
            if !hits.isEmpty { found.append("has \(hits.count) \(prefix)* symbols, e.g. \(hits[0])") }
        }
        for module in Self.forbiddenModules {
            let mangled = "\(module.utf8.count)\(module)"
            let hits = symbols.filter { $0.hasPrefix("$s") && $0.contains(mangled) }
            if !hits.isEmpty { found.append("has \(hits.count) symbols of module \(module), e.g. \(hits[0])") }
        }
        return found
    }
}
#endif
