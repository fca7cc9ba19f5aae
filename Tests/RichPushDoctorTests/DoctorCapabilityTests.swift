import Foundation
import RichPushCore
import RichPushDoctor
import RichPushTestSupport
import Testing

/// Issue 29 (moved to 30): every build configuration is checked and each finding names its own;
/// issue 30: the capabilities what the pushes use needs, on the seeded fixtures
/// (Tests/Fixtures/xcode, make_fixtures.py) and on a real app with a communication setup.
@Suite("doctor: every configuration, and the capabilities")
struct DoctorCapabilityTests {
    func codes(_ report: DoctorReport) -> [String] {
        report.findings.filter { $0.severity != .info }.map { "\($0.severity) \($0.code) \($0.target) \($0.configurations)" }
    }

    @Test func aFaultInTheDebugConfigurationOnlyIsAnErrorNamingDebug() throws {
        let report = Doctor.run(path: Fixture.path("nse_deployment_target_debug_only"))
        #expect(report.configurations == ["Debug", "Release"])
        #expect(codes(report) == ["error nse_deployment_target_above_app NotificationService [\"Debug\"]"])
        let finding = try #require(report.findings.first { $0.code == .nseDeploymentTargetAboveApp })
        #expect(finding.description.contains("install the app without the extension [Debug] Fix: "), "\(finding)")
        #expect(report.summary.contains("configurations Debug, Release checked"))
        // Release alone (what the doctor checked before) finds nothing: the fault was invisible.
        #expect(!Doctor.run(path: Fixture.path("nse_deployment_target_debug_only"), configurations: ["Release"]).hasErrors)
        // A fault in every configuration is one finding naming both.
        let both = Doctor.run(path: Fixture.path("nse_deployment_target_above_app"))
        #expect(codes(both) == ["error nse_deployment_target_above_app NotificationService [\"Debug\", \"Release\"]"])
        let json = both.json
        #expect(json["configurations"] == .array([.string("Debug"), .string("Release")]))
        #expect(json["findings"]?.arrayValue?.first?["configurations"] == .array([.string("Debug"), .string("Release")]))
    }

    @Test func aCompleteCommunicationSetupHasNoFinding() throws {
        let report = Doctor.run(path: Fixture.path("communication_correct"), expectations: DoctorExpectations(interruptionLevels: [], messages: true))
        #expect(codes(report) == [])
    }

    @Test func eachMissingPartOfTheCommunicationSetupIsFoundWithItsFix() throws {
        let capability = Doctor.run(path: Fixture.path("communication_capability_missing"))
        #expect(codes(capability) == ["error communication_capability_missing App [\"Debug\", \"Release\"]"])
        #expect(
            capability.findings.first?.fix
                == "App → Signing & Capabilities → + Capability → Communication Notifications (adds com.apple.developer.usernotifications.communication = YES)")
        let activity = Doctor.run(path: Fixture.path("communication_activity_type_missing"))
        #expect(codes(activity) == ["error communication_activity_type_missing App [\"Debug\", \"Release\"]"])
        #expect(activity.findings.first?.message.contains("(it has INStartCallIntent)") == true)
        #expect(activity.findings.first?.message.contains("ITMS-90894") == true)
        let intents = Doctor.run(path: Fixture.path("communication_intents_supported_missing"))
        #expect(codes(intents) == ["warning communication_intents_supported_missing NotificationService [\"Debug\", \"Release\"]"])
        #expect(
            intents.findings.first?.fix.hasPrefix("add NSExtension → NSExtensionAttributes → IntentsSupported (an array) with INSendMessageIntent to ") == true)
        // An extension's own intent code is a setup too: every part of it is missing.
        let own = Doctor.run(path: Fixture.path("communication_own_code"))
        #expect(
            codes(own).filter { $0.contains("communication") }.map { $0.split(separator: " ").prefix(3).joined(separator: " ") } == [
                "error communication_capability_missing App", "error communication_activity_type_missing App",
                "warning communication_intents_supported_missing NotificationService",
            ])
        #expect(own.findings.first { $0.code == .communicationCapabilityMissing }?.message.contains("the extension's sources use INSendMessageIntent") == true)
    }

    @Test func messagesTheUserOrThePayloadNamesAreCheckedOnAProjectWithoutTheSetup() throws {
        // The correct project has no communication setup: nothing, until messages are said to be sent.
        #expect(codes(Doctor.run(path: Fixture.path("correct"))) == [])
        let said = Doctor.run(path: Fixture.path("correct"), expectations: DoctorExpectations(interruptionLevels: [], messages: true))
        #expect(said.findings.filter { $0.severity == .error }.map(\.code) == [.communicationCapabilityMissing, .communicationActivityTypeMissing])
        #expect(said.findings.first?.message.hasPrefix("the pushes carry messages from people (communication notifications), but ") == true)
        let payload = Data(#"{"aps": {"alert": "Tea?", "mutable-content": 1}, "push_id": "p", "sender": {"id": "u", "name": "Ada"}}"#.utf8)
        let fromPayload = Doctor.run(path: Fixture.path("correct"), payload: payload)
        #expect(fromPayload.findings.contains { $0.code == .communicationCapabilityMissing })
    }

    @Test func interruptionLevelsNeedTheirEntitlements() throws {
        let both = DoctorExpectations(interruptionLevels: [.timeSensitive, .critical])
        // The correct fixture has neither entitlement.
        #expect(
            codes(Doctor.run(path: Fixture.path("correct"), expectations: both)) == [
                "error time_sensitive_entitlement_missing App [\"Debug\", \"Release\"]",
                "error critical_alerts_entitlement_missing App [\"Debug\", \"Release\"]",
            ])
        // This one has Time Sensitive: only Critical Alerts is missing.
        let report = Doctor.run(path: Fixture.path("interruption_entitlements"), expectations: both)
        #expect(codes(report) == ["error critical_alerts_entitlement_missing App [\"Debug\", \"Release\"]"])
        #expect(report.findings.first?.fix.contains("request the Critical Alerts entitlement from Apple") == true)
        // active and passive need nothing; a payload's level counts as said.
        #expect(codes(Doctor.run(path: Fixture.path("correct"), expectations: DoctorExpectations(interruptionLevels: [.active, .passive]))) == [])
        let payload = Data(#"{"aps": {"alert": "Now", "interruption-level": "time-sensitive"}, "push_id": "p"}"#.utf8)
        #expect(
            Doctor.run(path: Fixture.path("correct"), payload: payload).findings.filter { $0.severity == .error }.map(\.code) == [
                .timeSensitiveEntitlementMissing
            ])
    }

    /// A real app with a communication setup: nextcloud/talk-ios (its files are not part of this
    /// repository). Check it out (e.g. `git clone https://github.com/nextcloud/talk-ios`, commit
    /// 2d31eda5 was checked) and set RICHPUSH_DOCTOR_REAL_APP to its folder; CocoaPods' xcconfig
    /// files are missing without `pod install` (warnings), which changes none of these findings.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["RICHPUSH_DOCTOR_REAL_APP"] != nil, "set RICHPUSH_DOCTOR_REAL_APP to a talk-ios checkout"))
    func talkIOSHasTheCapabilityAndTheActivityTypeButNoIntentsSupported() throws {
        let path = try #require(ProcessInfo.processInfo.environment["RICHPUSH_DOCTOR_REAL_APP"])
        let report = Doctor.run(path: path)
        #expect(report.configurations == ["Debug", "Release"])
        let communication = report.findings.filter { DoctorCode.capabilityCodes.contains($0.code) }
        #expect(communication.map(\.code) == [.communicationIntentsSupportedMissing])
        #expect(communication.first?.target == "NotificationServiceExtension")
        #expect(communication.first?.configurations == ["Debug", "Release"])
        #expect(
            communication.first?.message.contains(
                "the app has com.apple.developer.usernotifications.communication; the app's NSUserActivityTypes lists INSendMessageIntent; the extension's sources use INSendMessageIntent"
            ) == true)
        #expect(!report.hasErrors)
        // Its pushes are not sent time-sensitive: said so, the missing entitlement is an error.
        let urgent = Doctor.run(path: path, expectations: DoctorExpectations(interruptionLevels: [.timeSensitive]))
        #expect(urgent.findings.filter { $0.severity == .error }.map { "\($0.code) \($0.target)" } == ["time_sensitive_entitlement_missing NextcloudTalk"])
    }
}
