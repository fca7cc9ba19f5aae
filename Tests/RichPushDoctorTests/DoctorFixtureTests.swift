import Foundation
import RichPushDoctor
import RichPushTestSupport
import XCTest

/// Each fixture project (Tests/Fixtures/xcode/<case>) gives its finding, and the correct one none.
final class DoctorFixtureTests: XCTestCase {
    func report(_ name: String, payload: String? = nil) throws -> DoctorReport {
        let data = try payload.map { try Data(contentsOf: Fixture.directory.appendingPathComponent("payloads/\($0)")) }
        return Doctor.run(path: Fixture.path(name), payload: data)
    }

    func errors(_ report: DoctorReport) -> [String] {
        report.findings.filter { $0.severity == .error }.map { "\($0.code) \($0.target)" }
    }

    func testCorrectProjectHasNoErrorOrWarning() throws {
        let report = try report("correct")
        XCTAssertEqual(report.findings.filter { $0.severity != .info }, [], "\(report.lines)")
        XCTAssertFalse(report.hasErrors)
        XCTAssertEqual(report.findings.map(\.code), [.contentExtensionPresent])
        XCTAssertEqual(report.findings.first?.message, "notification content extension of App, for the categories image, video")
        let targets = Dictionary(uniqueKeysWithValues: report.targets.map { ($0.name, $0) })
        XCTAssertEqual(targets["App"]?.kind, "app")
        // The app's bundle id and deployment target come from App.xcconfig, which includes Shared.xcconfig.
        XCTAssertEqual(targets["App"]?.bundleID, "com.example.fixture")
        XCTAssertEqual(targets["App"]?.deploymentTarget, "16.0")
        XCTAssertEqual(targets["NotificationService"]?.kind, "notification_service_extension")
        XCTAssertEqual(targets["NotificationService"]?.bundleID, "com.example.fixture.NotificationService")
        XCTAssertEqual(targets["NotificationService"]?.embeddedIn, ["App"])
        // The content extension's Info.plist is a binary plist.
        XCTAssertEqual(targets["NotificationContent"]?.kind, "notification_content_extension")
        XCTAssertTrue(report.summary.hasSuffix("; no error found"), report.summary)
    }

    func testEachCaseGivesItsFinding() throws {
        let expected: [(String, [String])] = [
            ("nse_missing", ["nse_missing App"]),
            ("nse_not_embedded", ["nse_not_embedded NotificationService"]),
            // The phase embeds both extensions, so both are named.
            ("nse_copy_only_when_installing", ["nse_copy_only_when_installing NotificationService", "nse_copy_only_when_installing NotificationContent"]),
            ("nse_wrong_extension_point", ["nse_wrong_extension_point NotificationService"]),
            ("nse_principal_class", ["nse_principal_class NotificationService"]),
            ("nse_deployment_target_above_app", ["nse_deployment_target_above_app NotificationService"]),
            ("nse_bundle_id_prefix", ["nse_bundle_id_prefix NotificationService"]),
            ("app_group_mismatch", ["app_group_mismatch NotificationService"]),
            ("aps_environment_missing", ["aps_environment_missing App"]),
        ]
        for (name, findings) in expected {
            let report = try report(name)
            XCTAssertEqual(errors(report), findings, "\(name): \(report.lines)")
        }
    }

    func testMessagesSayWhatAndTheFix() throws {
        let deployment = try report("nse_deployment_target_above_app").findings.first { $0.code == .nseDeploymentTargetAboveApp }
        XCTAssertEqual(
            deployment?.message,
            "IPHONEOS_DEPLOYMENT_TARGET is 17.0, above the app App's 16.0: devices on iOS 16.0 up to below 17.0 install the app without the extension")
        XCTAssertEqual(deployment?.fix, "set NotificationService's iOS Deployment Target to 16.0 (or lower), or raise the app's")
        let principal = try report("nse_principal_class").findings.first { $0.code == .nsePrincipalClass }
        XCTAssertTrue(
            principal?.message.hasPrefix("NSExtensionPrincipalClass is NotificationService.NotificationServce, but no class NotificationServce") ?? false)
        let group = try report("app_group_mismatch").findings.first { $0.code == .appGroupMismatch }
        XCTAssertTrue(
            group?.message.contains("group.com.example.fixture (RichPush → AppGroupIdentifier) is not in the entitlements of the extension NotificationService")
                ?? false)
        let copy = try report("nse_copy_only_when_installing").findings.first
        XCTAssertEqual(
            copy?.description.hasPrefix("error nse_copy_only_when_installing NotificationService: App's \"Embed Foundation Extensions\" phase"), true)
    }

    func testNotLinkedIsInformational() throws {
        let report = try report("richpush_not_linked")
        XCTAssertFalse(report.hasErrors)
        XCTAssertEqual(report.findings.filter { $0.code == .richPushNotLinked }.map(\.severity), [.info])
    }

    func testMalformedProjectNamesFileAndLine() throws {
        let report = try report("malformed")
        XCTAssertEqual(report.findings.map(\.code), [.projectUnreadable])
        let message = report.findings.first?.message ?? ""
        // make_fixtures.py drops the ';' of the first PBXBuildFile line (line 10).
        XCTAssertTrue(
            message.hasSuffix(
                "malformed/Fixture.xcodeproj/project.pbxproj:10: expected ';' after the value of \"29BF882021595560997CBD0A\" but found '6B76940E1477F779ED7074BE'"
            ) || message.contains("project.pbxproj:10: expected ';'"), message)
        XCTAssertTrue(report.hasErrors)
    }

    func testGeneratedProjectsGetOneClearLine() throws {
        let xcodegen = try report("xcodegen")
        XCTAssertEqual(xcodegen.findings.count, 1)
        XCTAssertEqual(xcodegen.findings.first?.code, .projectNotFound)
        XCTAssertTrue(xcodegen.findings.first?.message.contains("has an XcodeGen project.yml but no .xcodeproj: run `xcodegen generate` first") ?? false)
        let tuist = try report("tuist")
        XCTAssertTrue(
            tuist.findings.first?.message.contains("is a Tuist project (Project.swift) with no .xcodeproj: run `tuist generate --no-open` first") ?? false)
    }

    func testPathForms() throws {
        let folder = Doctor.run(path: Fixture.path("correct"))
        let project = Doctor.run(path: Fixture.path("correct") + "/Fixture.xcodeproj")
        let file = Doctor.run(path: Fixture.pbxproj("correct"))
        XCTAssertEqual(folder.project, project.project)
        XCTAssertEqual(file.project, project.project)
        let several = Doctor.run(path: Fixture.directory.path)
        XCTAssertEqual(several.findings.filter { $0.code == .severalProjects }.count, 1)
        XCTAssertTrue(several.project?.hasSuffix("app_group_mismatch/Fixture.xcodeproj") ?? false, "the first in name order")
        let missing = Doctor.run(path: "/nonexistent/App")
        XCTAssertEqual(missing.findings.map(\.code), [.projectNotFound])
    }

    func testWorkspaceNamesTheProject() throws {
        let work = try Fixtures.temporaryDirectory("richpush-doctor-ws")
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.copyItem(atPath: Fixture.path("nse_not_embedded"), toPath: work.appendingPathComponent("app").path)
        let workspace = work.appendingPathComponent("App.xcworkspace")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <Workspace version = "1.0">
               <Group location = "group:app" name = "app">
                  <FileRef location = "group:Fixture.xcodeproj"></FileRef>
               </Group>
               <FileRef location = "group:Pods/Pods.xcodeproj"></FileRef>
            </Workspace>
            """.utf8
        ).write(to: workspace.appendingPathComponent("contents.xcworkspacedata"))
        let report = Doctor.run(path: workspace.path)
        XCTAssertEqual(report.project, work.appendingPathComponent("app/Fixture.xcodeproj").path)
        XCTAssertEqual(errors(report), ["nse_not_embedded NotificationService"])
    }

    func testPayloadWithHTTPMediaTheExtensionDoesNotAllow() throws {
        let report = try report("correct", payload: "http-media.json")
        XCTAssertEqual(errors(report).sorted(), ["ats_blocks_media NotificationService", "insecure_media_url payload"])
        let ats = report.findings.first { $0.code == .atsBlocksMedia }
        XCTAssertTrue(ats?.message.contains("http://cdn.example.net/") ?? false)
        // The host the extension allows (RichPush AllowedHTTPHosts and its ATS exception) is no
        // error; the lint still prefers https (a warning).
        let allowed = try self.report("correct", payload: "http-allowed-host.json")
        XCTAssertEqual(errors(allowed), [])
        XCTAssertEqual(allowed.findings.filter { $0.severity == .warning }.map { "\($0.code) \($0.target)" }, ["insecure_media_url payload"])
    }

    func testPayloadLintUsesTheExtensionsMediaKeyPaths() throws {
        // data.image is media only for an extension whose RichPush.MediaKeyPaths lists it (Examples' does).
        let data = try Data(contentsOf: Fixture.directory.appendingPathComponent("payloads/custom-key-no-mutable.json"))
        let examples = Doctor.run(path: Fixtures.packageRoot.appendingPathComponent("Examples").path, payload: data)
        XCTAssertEqual(errors(examples), ["mutable_content_missing payload"])
        let plain = Doctor.run(path: Fixture.path("correct"), payload: data)
        XCTAssertEqual(errors(plain), [])
    }

    func testExamplesProjectPasses() throws {
        let report = Doctor.run(path: Fixtures.packageRoot.appendingPathComponent("Examples").path)
        XCTAssertFalse(report.hasErrors, "\(report.lines)")
        XCTAssertEqual(report.findings.filter { $0.severity == .warning }, [], "\(report.lines)")
        let kinds = Dictionary(uniqueKeysWithValues: report.targets.map { ($0.name, $0.kind) })
        XCTAssertEqual(kinds["RichPushExample"], "app")
        XCTAssertEqual(kinds["NotificationServiceExtension"], "notification_service_extension")
        XCTAssertEqual(kinds["NotificationContentExtension"], "notification_content_extension")
        XCTAssertEqual(report.targets.first { $0.name == "NotificationServiceExtension" }?.embeddedIn, ["RichPushExample"])
    }

    func testJSONShape() throws {
        let report = try report("nse_bundle_id_prefix")
        guard case .object(let root) = report.json else { return XCTFail("not an object") }
        XCTAssertEqual(Set(root.keys), ["project", "configurations", "targets", "findings"])
        let target = root["targets"]?.arrayValue?.first?.objectValue
        XCTAssertEqual(Set(target?.keys ?? [:].keys), ["name", "kind", "bundle_id", "deployment_target", "embedded_in"])
        let finding = root["findings"]?.arrayValue?.first?.objectValue
        XCTAssertEqual(Set(finding?.keys ?? [:].keys), ["code", "severity", "target", "configurations", "message", "fix"])
        XCTAssertEqual(finding?["code"]?.stringValue, "nse_bundle_id_prefix")
        XCTAssertEqual(finding?["severity"]?.stringValue, "error")
    }
}
