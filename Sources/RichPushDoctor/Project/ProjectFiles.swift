import Foundation
@_spi(RichPushInternal) import RichPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every file `richpush doctor` reads, through one gate that is safe on a hostile project (an
/// untrusted pull request's checkout on CI):
///
/// - only regular files inside the project folder (`root`), judged on the real path (symbolic
///   links and `..` resolved): not `/proc/self/environ`, not a device or a FIFO, not
///   `~/.ssh/id_rsa` through an absolute path, an `#include "../../…"` or a link;
/// - each file read once (its bytes cached by real path: an `.xcconfig` that several files
///   include, or every build configuration, costs one read), at most `maximumFileBytes` each and
///   `maximumTotalBytes` in all;
/// - folders walked with each real folder visited once (a symbolic link to a folder already
///   seen, or to one outside the root, is not followed), at most a given number of entries.
///
/// The project folder is the folder given to the doctor, or the folder holding the `.xcodeproj`
/// or `.xcworkspace` given (`root(for:)`). What a refusal says names the path as the project
/// wrote it, never what the file holds.
public final class ProjectFiles: Sendable {
    /// The most bytes one file may have: 256 MB (a 20-target `project.pbxproj` is ~5 MB).
    public static let maximumFileBytes = PropertyListFile.maximumBytes
    /// The most bytes read in all: 512 MB.
    public static let maximumTotalBytes = 512 * 1024 * 1024
    /// Folders never read, whatever the root: the kernel's (their files are "regular" files whose
    /// content is the process's environment, memory maps, …). Devices are never regular files.
    static let systemFolders = ["/proc", "/sys"]

    /// The project folder's real path.
    public let root: String

    private struct State {
        var bytes: [String: Data] = [:]
        var total = 0
        var xcconfigs: [String: XCConfigFile.Parsed] = [:]
        var resolutions: [String: XCConfigFile] = [:]
    }

    private let state = Locked(State())

    /// Files of the folder at `root` (its real path is taken; a folder that does not exist makes
    /// every read fail as outside).
    ///
    /// - Parameter root: the project folder.
    public init(root: String) {
        self.root = Self.realPath(root) ?? ""
    }

    /// Reads nothing: every path is outside (the files of facts made without a project).
    public static let none = ProjectFiles(root: "")

    /// The project folder for what the doctor was given: a folder is itself; an `.xcodeproj`,
    /// an `.xcworkspace` or a `project.pbxproj` is the folder holding the project.
    ///
    /// - Parameter path: what the doctor was given.
    /// - Returns: the folder.
    public static func root(for path: String) -> String {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        if (trimmed as NSString).lastPathComponent == "project.pbxproj" { trimmed = (trimmed as NSString).deletingLastPathComponent }
        if trimmed.hasSuffix(".xcodeproj") || trimmed.hasSuffix(".xcworkspace") {
            let parent = (trimmed as NSString).deletingLastPathComponent
            return parent.isEmpty ? "." : parent
        }
        return trimmed.isEmpty ? "." : trimmed
    }

    /// Where a path really is, as far as the doctor may go.
    enum Place: Equatable {
        /// Inside the project folder: the real path.
        case inside(String)
        /// Outside it, or in /proc, /sys, /dev.
        case outside
        /// Not there.
        case missing
    }

    /// Where `path` really is.
    func place(_ path: String) -> Place {
        guard root.hasPrefix("/") else { return .outside }
        guard let real = Self.realPath(path) else { return .missing }
        if Self.kernelMounts.contains(where: { real == $0 || real.hasPrefix($0 + "/") }) { return .outside }
        guard real == root || real.hasPrefix(root == "/" ? "/" : root + "/") else { return .outside }
        return .inside(real)
    }

    /// The bytes of a regular file inside the project folder.
    ///
    /// - Parameter path: the file (as the project names it).
    /// - Returns: its bytes.
    /// - Throws: `PropertyListError` naming the path: missing, outside the project folder, not a
    ///   regular file, over `maximumFileBytes`, past `maximumTotalBytes`, unreadable.
    public func read(_ path: String) throws(PropertyListError) -> Data {
        let real: String
        switch place(path) {
        case .missing: throw PropertyListError(file: path, line: 0, message: "no such file")
        case .outside: throw outside(path)
        case .inside(let r): real = r
        }
        if let cached = state.withLock({ $0.bytes[real] }) { return cached }
        let descriptor = open(real, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PropertyListError(file: path, line: 0, message: "cannot be read (\(String(cString: strerror(errno))))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw PropertyListError(file: path, line: 0, message: "cannot be read") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw PropertyListError(
                file: path, line: 0,
                message: info.st_mode & S_IFMT == S_IFDIR ? "is a directory, not a file" : "is not a regular file (a device, FIFO or socket); not read")
        }
        let size = Int(info.st_size)
        guard size <= Self.maximumFileBytes else {
            throw PropertyListError(file: path, line: 0, message: "is \(size) bytes; files over \(Self.maximumFileBytes) bytes are not read")
        }
        let allowed = state.withLock { state -> Bool in
            guard state.total + size <= Self.maximumTotalBytes else { return false }
            state.total += size
            return true
        }
        guard allowed else {
            throw PropertyListError(
                file: path, line: 0, message: "not read: the project's files already took \(Self.maximumTotalBytes) bytes, the most the doctor reads in one run"
            )
        }
        var data = Data(count: size)
        var got = 0
        while got < size {
            let n = data.withUnsafeMutableBytes { raw in Self.systemRead(descriptor, raw.baseAddress.map { $0 + got }, size - got) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        if got < size { data = data.prefix(got) }
        state.withLock { $0.bytes[real] = data }
        return data
    }

    /// The UTF-8 text of a source file inside the project folder, or `nil` when it cannot be
    /// read (missing, outside, not a regular file, not UTF-8).
    ///
    /// - Parameter path: the file.
    /// - Returns: its text, or `nil`.
    public func text(_ path: String) -> String? {
        (try? read(path)).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// Whether `path` is a regular file inside the project folder.
    ///
    /// - Parameter path: the path.
    /// - Returns: `true` when it is.
    public func isRegularFile(_ path: String) -> Bool {
        guard case .inside(let real) = place(path) else { return false }
        var info = stat()
        return stat(real, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Whether `path` is a folder inside the project folder.
    ///
    /// - Parameter path: the path.
    /// - Returns: `true` when it is.
    public func isDirectory(_ path: String) -> Bool {
        guard case .inside(let real) = place(path) else { return false }
        var info = stat()
        return stat(real, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The names in a folder inside the project folder (sorted), or `nil`.
    ///
    /// - Parameter folder: the folder.
    /// - Returns: the entries' names.
    public func entries(_ folder: String) -> [String]? {
        guard case .inside(let real) = place(folder), let names = try? FileManager.default.contentsOfDirectory(atPath: real) else { return nil }
        return names.sorted()
    }

    /// The files below `folder` (relative paths, depth first in name order), each real folder
    /// visited once: a symbolic link to a folder already visited, or outside the project folder,
    /// is not followed.
    ///
    /// - Parameters:
    ///   - folder: the folder.
    ///   - limit: the most entries looked at.
    /// - Returns: the relative paths of the regular files.
    public func files(under folder: String, limit: Int) -> [String] {
        guard case .inside(let real) = place(folder) else { return [] }
        var visited: Set<String> = [real]
        var out: [String] = []
        var seen = 0
        func walk(_ path: String, relative: String) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names.sorted() {
                guard seen < limit else { return }
                seen += 1
                let full = (path as NSString).appendingPathComponent(name)
                let rel = relative.isEmpty ? name : relative + "/" + name
                switch place(full) {
                case .inside(let target):
                    var info = stat()
                    guard stat(target, &info) == 0 else { continue }
                    if info.st_mode & S_IFMT == S_IFDIR {
                        if visited.insert(target).inserted { walk(full, relative: rel) }
                    } else if info.st_mode & S_IFMT == S_IFREG {
                        out.append(rel)
                    }
                case .outside, .missing:
                    continue
                }
            }
        }
        walk(real, relative: "")
        return out
    }

    /// The parsed `.xcconfig` at a real path, parsing it (once) with `parse`.
    func xcconfig(_ real: String, parse: () -> XCConfigFile.Parsed) -> XCConfigFile.Parsed {
        if let parsed = state.withLock({ $0.xcconfigs[real] }) { return parsed }
        let parsed = parse()
        state.withLock { $0.xcconfigs[real] = parsed }
        return parsed
    }

    /// The resolution of the `.xcconfig` at `path` (as given), made (once) by `resolve`: each
    /// target and configuration naming the same file shares it.
    func resolution(_ path: String, resolve: () -> XCConfigFile) -> XCConfigFile {
        if let done = state.withLock({ $0.resolutions[path] }) { return done }
        let made = resolve()
        state.withLock { $0.resolutions[path] = made }
        return made
    }

    /// Bytes read so far.
    public var bytesRead: Int { state.withLock { $0.total } }

    private func outside(_ path: String) -> PropertyListError {
        PropertyListError(
            file: path, line: 0,
            message:
                "is outside the project folder \(root) (an absolute path, a ../ path or a symbolic link leads out of it); richpush doctor reads only files inside the folder it checks"
        )
    }

    /// Where kernel file systems are mounted (procfs, sysfs, debugfs, …; `/proc/self/mounts`),
    /// wherever that is (a container's `/host/proc` too); `/proc` and `/sys` always.
    static let kernelMounts: [String] = {
        let kernel: Set<String> = [
            "proc", "sysfs", "debugfs", "securityfs", "tracefs", "cgroup", "cgroup2", "configfs", "bpf", "efivarfs", "fusectl", "pstore", "binfmt_misc",
        ]
        var points = Set(systemFolders)
        if let table = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) {
            for line in table.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count >= 3, kernel.contains(String(fields[2])) else { continue }
                points.insert(unescapeMountPoint(String(fields[1])))
            }
        }
        return points.sorted()
    }()

    /// A mount point as `/proc/self/mounts` writes it (`\040` for a space, octal escapes).
    static func unescapeMountPoint(_ text: String) -> String {
        var out: [UInt8] = []
        let b = Array(text.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "\\"), i + 3 < b.count, let v = UInt8(String(decoding: b[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                out.append(v)
                i += 4
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.read(descriptor, buffer, count)
        #else
        return Darwin.read(descriptor, buffer, count)
        #endif
    }

    /// `realpath(3)`: the absolute path with every symbolic link, `.` and `..` resolved, or `nil`
    /// when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard !path.isEmpty, let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
