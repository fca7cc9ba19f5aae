import Foundation
import RichPushDoctor
import RichPushTestSupport
import Testing

/// `richpush doctor` on a hostile project (issue 28, item 3): a pull request's checkout on CI
/// must not make the doctor read outside it, print a secret, hang or run out of memory.
/// Each test copies the `correct` fixture and makes one attack on it.
@Suite("Doctor on a hostile project")
struct HostileProjectTests {
    /// A copy of the `correct` fixture in a fresh folder (removed by the caller).
    static func project(_ label: String) throws -> URL {
        let folder = try Fixtures.temporaryDirectory("doctor-hostile-\(label)")
        let copy = folder.appendingPathComponent("project")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixture.path("correct")), to: copy)
        return copy
    }

    static func append(_ text: String, to file: URL) throws {
        let before = try String(contentsOf: file, encoding: .utf8)
        try (before + "\n" + text + "\n").write(to: file, atomically: true, encoding: .utf8)
    }

    static func doctor(_ folder: URL, environment: [String: String] = [:]) async throws -> ChildProcess.Finished {
        try await ChildProcess(Fixtures.richpushBinary.path, ["doctor", folder.path, "--json"], environment: environment).run(timeout: 120)
    }

    /// A diamond of `levels` .xcconfig files, each including the next twice; returns the top's name.
    static func diamond(in config: URL, levels: Int) throws -> String {
        for level in 0..<levels {
            try "#include \"L\(level + 1).xcconfig\"\n#include \"L\(level + 1).xcconfig\"\nLEVEL_\(level) = \(level)\n".write(
                to: config.appendingPathComponent("L\(level).xcconfig"), atomically: true, encoding: .utf8)
        }
        try "DIAMOND_BOTTOM = yes\n".write(to: config.appendingPathComponent("L\(levels).xcconfig"), atomically: true, encoding: .utf8)
        return "L0.xcconfig"
    }

    @Test("#include \"/proc/self/environ\" and an absolute or ../ include of a secret: refused as outside the project, nothing of them printed")
    func includesOutside() async throws {
        let project = try Self.project("environ")
        defer { try? FileManager.default.removeItem(at: project.deletingLastPathComponent()) }
        let secretFile = project.deletingLastPathComponent().appendingPathComponent("id_rsa")
        let key =
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj=\nsecretline-\(UUID().uuidString)=\n-----END PRIVATE KEY-----\n"
        try key.write(to: secretFile, atomically: true, encoding: .utf8)
        try Self.append(
            "#include \"/proc/self/environ\"\n#include \"\(secretFile.path)\"\n#include \"../id_rsa\"",
            to: project.appendingPathComponent("Config/Shared.xcconfig"))
        let secret = "ci-secret-\(UUID().uuidString)"
        let run = try await Self.doctor(project, environment: ["RICHPUSH_CI_SECRET": secret])
        let output = run.stdout + run.stderr
        #expect(!output.contains(secret), "the environment leaked: \(output)")
        #expect(!output.contains("RICHPUSH_CI_SECRET"))
        #expect(!output.contains("MIIEvQ") && !output.contains("secretline"), "the key leaked: \(output)")
        for path in ["/proc/self/environ", secretFile.path] {
            #expect(output.contains("#include \\\"\(path)\\\" is outside the project folder"), "\(path): \(output)")
        }
    }

    @Test("a private key inside the project, included as an .xcconfig: its lines are never quoted")
    func keyInside() async throws {
        let project = try Self.project("key-inside")
        defer { try? FileManager.default.removeItem(at: project.deletingLastPathComponent()) }
        let marker = "keyline-\(UUID().uuidString)"
        try "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN\(marker)==\nAAoIBAQC7VJT=abc\n-----END PRIVATE KEY-----\n".write(
            to: project.appendingPathComponent("Config/key.pem"), atomically: true, encoding: .utf8)
        try Self.append("#include \"key.pem\"", to: project.appendingPathComponent("Config/Shared.xcconfig"))
        let run = try await Self.doctor(project)
        let output = run.stdout + run.stderr
        #expect(!output.contains(marker) && !output.contains("MIIEvQ") && !output.contains("BEGIN PRIVATE"), "\(output)")
        #expect(output.contains("key.pem:1: expected NAME = value or #include"), "\(output)")
    }

    @Test("Info.plist and entitlements through a symbolic link out of the project, or a FIFO: refused, no hang")
    func linksAndDevices() async throws {
        let project = try Self.project("links")
        defer { try? FileManager.default.removeItem(at: project.deletingLastPathComponent()) }
        let info = project.appendingPathComponent("NotificationService/Info.plist")
        try FileManager.default.removeItem(at: info)
        try FileManager.default.createSymbolicLink(atPath: info.path, withDestinationPath: "/etc/passwd")
        let entitlements = project.appendingPathComponent("App/App.entitlements")
        try FileManager.default.removeItem(at: entitlements)
        #expect(mkfifo(entitlements.path, 0o644) == 0)
        let run = try await Self.doctor(project)
        let output = run.stdout + run.stderr
        #expect(output.contains("NotificationService/Info.plist is outside the project folder"), "\(output)")
        #expect(output.contains("App.entitlements: is not a regular file (a device, FIFO or socket); not read"), "\(output)")
        #expect(!output.contains("root:x:0:0"))
    }

    @Test("the 150-byte binary plist whose arrays share references (2³⁰ values): refused at once, in little memory")
    func sharedReferences() async throws {
        let project = try Self.project("bplist")
        defer { try? FileManager.default.removeItem(at: project.deletingLastPathComponent()) }
        try Self.sharedReferencePlist(levels: 30).write(to: project.appendingPathComponent("NotificationService/Info.plist"))
        let script = """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], capture_output=True)
            print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
            sys.stderr.write(r.stdout.decode(errors='replace'))
            """
        let run = try await ChildProcess("python3", ["-c", script, Fixtures.richpushBinary.path, "doctor", project.path, "--json"]).run(timeout: 120)
        let fields = run.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let peak = try #require(fields.last, "\(run.stdout) \(run.stderr)")
        #expect(peak < 200 * 1024 * 1024, "peak RSS \(peak / 1024 / 1024) MB")
        #expect(run.stderr.contains("shared references expand to more than 1000000 values"), "\(run.stderr)")
    }

    @Test("binary plists read as Foundation reads them (written by Python's plistlib), shared values kept")
    func binaryPlists() async throws {
        let folder = try Fixtures.temporaryDirectory("bplist-compare")
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = """
            import plistlib, sys, datetime
            shared = ["x", {"k": [1, 2]}]
            value = {"CFBundleIdentifier": "com.example.app", "NSExtension": {"NSExtensionPointIdentifier": "com.apple.usernotifications.service",
                     "NSExtensionPrincipalClass": "$(PRODUCT_MODULE_NAME).NotificationService"}, "big": 2**40, "neg": -5, "real": 1.5,
                     "flag": True, "off": False, "data": b"\\x00\\x01\\xff", "unicode": "caf\\u00e9 \\u2603", "shared": [shared, shared, shared],
                     "when": datetime.datetime(2026, 12, 1, 12, 0, 0)}
            open(sys.argv[1], "wb").write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY))
            """
        let file = folder.appendingPathComponent("Info.plist")
        let made = try await ChildProcess("python3", ["-c", script, file.path]).run(timeout: 60)
        #expect(made.status == 0, "\(made.stderr)")
        let data = try Data(contentsOf: file)
        let ours = try PropertyListFile.parse(data, fileName: "Info.plist")
        var format = PropertyListSerialization.PropertyListFormat.binary
        let foundation = try #require(PlistValue(foundation: try PropertyListSerialization.propertyList(from: data, options: [], format: &format)))
        #expect(ours == foundation)
        #expect(ours["NSExtension"]?["NSExtensionPointIdentifier"]?.string == "com.apple.usernotifications.service")
        #expect(ours["unicode"]?.string == "café ☃")
        #expect(ours["big"] == .integer(1 << 40))
        #expect(ours["neg"] == .integer(-5))
    }

    @Test("a binary plist whose array holds itself: an error, no loop")
    func referenceCycle() throws {
        var data = Data("bplist00".utf8)
        data.append(contentsOf: [0xA1, 0x00])  // object 0: an array holding object 0
        let table = data.count
        data.append(8)
        data.append(contentsOf: [0, 0, 0, 0, 0, 0, 1, 1])
        for value in [UInt64(1), 0, UInt64(table)] { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
        #expect(throws: PropertyListError.self) { try PropertyListFile.parse(data, fileName: "cycle.plist") }
        do {
            _ = try PropertyListFile.parse(data, fileName: "cycle.plist")
        } catch let error as PropertyListError {
            #expect(error.message.contains("contains itself"), "\(error)")
        }
    }

    @Test("folders linked to themselves and to their parents: the search and the synchronized-folder walk visit each once")
    func symlinkedFolders() async throws {
        let project = try Self.project("symlinks")
        defer { try? FileManager.default.removeItem(at: project.deletingLastPathComponent()) }
        let service = project.appendingPathComponent("NotificationService")
        for i in 0..<40 {
            try FileManager.default.createSymbolicLink(atPath: service.appendingPathComponent("self\(i)").path, withDestinationPath: ".")
            try FileManager.default.createSymbolicLink(atPath: project.appendingPathComponent("up\(i)").path, withDestinationPath: "..")
            try FileManager.default.createSymbolicLink(atPath: project.appendingPathComponent("loop\(i)").path, withDestinationPath: ".")
        }
        let files = ProjectFiles(root: project.path)
        let below = files.files(under: project.path, limit: 100_000)
        #expect(below.filter { $0.hasSuffix("NotificationService.swift") }.count == 1, "\(below.filter { $0.hasSuffix(".swift") })")
        // The parent's folders are outside: never listed.
        #expect(!below.contains { $0.hasPrefix("up") }, "\(below.prefix(10))")
        let report = Doctor.run(path: project.path)
        #expect(report.project?.hasSuffix("Fixture.xcodeproj") == true, "\(report.findings)")
        #expect(!report.findings.contains { $0.code.rawValue == "several_projects" }, "\(report.findings)")
    }

    @Test("an include diamond 30 levels deep: the files read once each, the include bound reported")
    func diamondIncludes() throws {
        let project = try Self.project("diamond")
        defer { try? FileManager.default.removeItem(at: project.deletingLastPathComponent()) }
        let top = try Self.diamond(in: project.appendingPathComponent("Config"), levels: 30)
        try Self.append("#include \"\(top)\"", to: project.appendingPathComponent("Config/Shared.xcconfig"))
        let files = ProjectFiles(root: project.path)
        let config = XCConfigFile(path: project.appendingPathComponent("Config/Shared.xcconfig").path, files: files)
        #expect(config.problems.contains { $0.message.contains("includes reach more than 256 files") }, "\(config.problems)")
        // 32 files (Shared, L0…L30) of a few dozen bytes each: read once.
        #expect(files.bytesRead < 10_000, "\(files.bytesRead) bytes read")
        let report = Doctor.run(path: project.path)
        #expect(report.findings.contains { $0.message.contains("includes reach more than 256 files") })
    }

    /// A binary plist of `levels` arrays, each holding the next one twice, then a string: about
    /// 150 bytes that describe 2^levels values.
    static func sharedReferencePlist(levels: Int) -> Data {
        var data = Data("bplist00".utf8)
        var offsets: [Int] = []
        for i in 0..<levels {
            offsets.append(data.count)
            data.append(contentsOf: [0xA2, UInt8(i + 1), UInt8(i + 1)])
        }
        offsets.append(data.count)
        data.append(contentsOf: [0x51, UInt8(ascii: "x")])
        let table = data.count
        for offset in offsets { data.append(UInt8(offset)) }
        data.append(contentsOf: [0, 0, 0, 0, 0, 0, 1, 1])
        for value in [UInt64(offsets.count), 0, UInt64(table)] { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
        return data
    }
}
