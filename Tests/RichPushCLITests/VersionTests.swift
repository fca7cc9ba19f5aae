import Foundation
import RichPushCLI
import RichPushTestSupport
import Testing

/// The version Xcode's dependency rule picks (a Git tag) is the one in CHANGELOG.md and in the code
/// (the latest released heading: `## Unreleased`, what main has since, is not a version).
@Suite struct VersionTests {
    @Test func theChangelogsLatestVersionIsTheCodesAndASemanticVersion() throws {
        let changelog = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let heading = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") && $0 != "## Unreleased" })
        let version = String(heading.dropFirst(3))
        #expect(version == RichPushVersion.current)
        #expect(version.split(separator: ".").count == 3 && version.split(separator: ".").allSatisfy { Int($0) != nil }, "\(version)")
    }
}
