#if os(Linux)  // ELF tools (readelf, ldd, nm); macOS would need otool
import Foundation
import RichPushTestSupport

/// What a built binary links and defines, and which of it is server-side.
///
/// As swift-http-types' `scripts/run-linkage-test.sh` proves its core stays light: `readelf -d`
/// (direct `NEEDED` libraries), `ldd` (the whole load closure) and `nm` (symbols, defined or not).
struct LinkageInspection {
    /// Shared libraries that must never load into an extension: an HTTP server, databases, libvips.
    static let forbiddenLibraries = ["libmicrohttpd", "libsqlite3", "libpq", "libvips"]
    /// C symbol prefixes of those libraries.
    static let forbiddenSymbolPrefixes = ["MHD_", "sqlite3_", "PQconnect", "PQexec", "PQfinish", "vips_"]
    /// Swift modules of the other sides (mangled `<length><name>`), and the Linux-only host.
    static let forbiddenModules = ["RichPushServer", "RichPushProvider", "RichPushCLI", "RichPushExtensionHost"]

    /// Direct `NEEDED` entries.
    var needed: [String]
    /// Every library `ldd` resolves (the load closure).
    var loaded: [String]
    /// Every symbol name `nm` lists.
    var symbols: [String]

    /// Inspects a binary; the tools run as child processes awaited without blocking a thread.
    /// - Parameter binary: an executable or shared object.
    /// - Returns: the inspection.
    /// - Throws: when a tool fails.
    static func of(_ binary: URL) async throws -> LinkageInspection {
        let readelf = try await ChildProcess("readelf", ["-d", "-W", binary.path]).run(timeout: 60)
        guard readelf.status == 0 else { throw TestSupportError("readelf failed: \(readelf.stderr)") }
        let needed = readelf.stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        let ldd = try await ChildProcess("ldd", [binary.path]).run(timeout: 60)
        let loaded = ldd.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").first.map { String($0).trimmingCharacters(in: .whitespaces) } }
        let nm = try await ChildProcess("nm", ["--defined-only", binary.path]).run(timeout: 120)
        let undefined = try await ChildProcess("nm", ["--undefined-only", binary.path]).run(timeout: 120)
        let symbols = (nm.stdout + "\n" + undefined.stdout).split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        return LinkageInspection(needed: needed, loaded: loaded, symbols: symbols)
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
