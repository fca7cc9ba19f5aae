import Foundation
import RichPushDoctor
import RichPushTestSupport
import XCTest

/// Xcode 16 synchronized folders: a target's sources are its folders' files less its exceptions,
/// plus the files another target's folder lends it by an exception set naming it.
final class SynchronizedFolderTests: XCTestCase {
    /// Examples/ copied, with NotificationService.swift moved into App/ and the service
    /// extension's own folder taken off the target.
    func makeProject(lending: Bool) throws -> (URL, String) {
        let work = try Fixtures.temporaryDirectory("richpush-doctor-sync")
        let examples = work.appendingPathComponent("Examples")
        try FileManager.default.copyItem(at: Fixtures.packageRoot.appendingPathComponent("Examples"), to: examples)
        try FileManager.default.moveItem(
            at: examples.appendingPathComponent("NotificationServiceExtension/NotificationService.swift"),
            to: examples.appendingPathComponent("App/NotificationService.swift"))
        let pbxproj = examples.appendingPathComponent("RichPushExamples.xcodeproj/project.pbxproj")
        var text = try String(contentsOf: pbxproj, encoding: .utf8)
        let ownFolder = """
            			fileSystemSynchronizedGroups = (
            				E1A000000000000000000011 /* NotificationServiceExtension */,
            			);

            """
        XCTAssertTrue(text.contains(ownFolder))
        text = text.replacingOccurrences(of: ownFolder, with: "")
        if lending {
            // The App folder keeps the file out of the app and lends it to the service extension.
            text = text.replacingOccurrences(of: "\t\t\t\tApp.entitlements,\n", with: "\t\t\t\tApp.entitlements,\n\t\t\t\tNotificationService.swift,\n")
            text = text.replacingOccurrences(
                of: "/* End PBXFileSystemSynchronizedBuildFileExceptionSet section */",
                with: """
                    		E1A0000000000000000000A9 /* Exceptions for "App" folder in "NotificationServiceExtension" target */ = {
                    			isa = PBXFileSystemSynchronizedBuildFileExceptionSet;
                    			membershipExceptions = (
                    				NotificationService.swift,
                    			);
                    			target = E1A000000000000000000021 /* NotificationServiceExtension */;
                    		};
                    /* End PBXFileSystemSynchronizedBuildFileExceptionSet section */
                    """)
            text = text.replacingOccurrences(
                of: "\t\t\t\tE1A0000000000000000000A0 /* Exceptions for \"App\" folder in \"RichPushExample\" target */,\n",
                with:
                    "\t\t\t\tE1A0000000000000000000A0 /* Exceptions for \"App\" folder in \"RichPushExample\" target */,\n\t\t\t\tE1A0000000000000000000A9 /* Exceptions for \"App\" folder in \"NotificationServiceExtension\" target */,\n"
            )
        }
        try Data(text.utf8).write(to: pbxproj)
        return (work, examples.path)
    }

    func testFileLentByAnotherTargetsFolderIsASource() throws {
        let (work, path) = try makeProject(lending: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let report = Doctor.run(path: path)
        XCTAssertEqual(report.findings.filter { $0.severity != .info }, [], "\(report.lines)")
    }

    func testWithoutTheLoanTheClassIsUnconfirmed() throws {
        let (work, path) = try makeProject(lending: false)
        defer { try? FileManager.default.removeItem(at: work) }
        let report = Doctor.run(path: path)
        let principal = report.findings.filter { $0.code == .nsePrincipalClass }
        XCTAssertEqual(principal.map(\.severity), [.warning], "\(report.lines)")
        XCTAssertTrue(principal.first?.message.contains("the class may come from a linked package (RichPushNotificationService)") ?? false)
    }
}
