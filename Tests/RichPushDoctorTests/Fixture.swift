import Foundation
import RichPushTestSupport

/// The fixture projects under Tests/Fixtures/xcode (made by make_fixtures.py).
enum Fixture {
    static let directory = Fixtures.testsDirectory.appendingPathComponent("Fixtures/xcode")

    /// The folder of a case, e.g. `correct`.
    static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// The `project.pbxproj` of a case.
    static func pbxproj(_ name: String) -> String {
        directory.appendingPathComponent(name).appendingPathComponent("Fixture.xcodeproj/project.pbxproj").path
    }

    /// Every case with a `Fixture.xcodeproj`, sorted.
    static var projectCases: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter {
            FileManager.default.fileExists(atPath: pbxproj($0))
        }.sorted()
    }

    /// Every pbxproj the compatibility and fuzz tests use: the cases (except the malformed one),
    /// the parser fixtures and the Examples project.
    static var parseablePBXProjs: [String] {
        projectCases.filter { $0 != "malformed" }.map(pbxproj)
            + [
                directory.appendingPathComponent("parser/escapes.pbxproj").path,
                Fixtures.packageRoot.appendingPathComponent("Examples/RichPushExamples.xcodeproj/project.pbxproj").path,
            ]
    }
}
