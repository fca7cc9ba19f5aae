import Foundation

/// Paths of the test assets committed under `Tests/Fixtures` and `Tests/Support`.
public enum Fixtures {
    /// The repository's `Tests/` folder.
    public static let testsDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The repository root.
    public static let packageRoot: URL = testsDirectory.deletingLastPathComponent()

    /// `Tests/Fixtures/payloads`: the articles' payloads (placeholder hosts).
    public static let payloadsDirectory = testsDirectory.appendingPathComponent("Fixtures/payloads")

    /// `Tests/Fixtures/media`: real media files made by real encoders.
    public static let mediaDirectory = testsDirectory.appendingPathComponent("Fixtures/media")

    /// `Tests/Support`: test servers and scripts.
    public static let supportDirectory = testsDirectory.appendingPathComponent("Support")

    /// The bytes of a payload fixture, e.g. `seed000-basic.json`.
    public static func payload(_ name: String) throws -> Data {
        try Data(contentsOf: payloadsDirectory.appendingPathComponent(name))
    }

    /// The URL of a media fixture, e.g. `photo.jpg`.
    public static func media(_ name: String) -> URL {
        mediaDirectory.appendingPathComponent(name)
    }

    /// Every payload fixture's file name, sorted.
    public static func payloadNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: payloadsDirectory.path).filter { $0.hasSuffix(".json") }.sorted()
    }

    /// The built `richpush` binary (tests that run the command line use it).
    ///
    /// SwiftPM builds it before the tests when a test target depends on the executable's library;
    /// it sits next to the test bundle.
    public static var richpushBinary: URL {
        let bundle = Bundle.main.bundleURL
        var dir = bundle
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("richpush")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/richpush")
    }

    /// A fresh temporary directory, removed by the caller.
    public static func temporaryDirectory(_ label: String = "richpush-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
