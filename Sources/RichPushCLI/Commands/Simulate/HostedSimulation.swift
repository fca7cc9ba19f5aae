#if !canImport(UserNotifications)
import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushExtensionHost
import RichPushNotificationService
import UserNotificationsStandIn

/// `richpush simulate` on Linux: the real `RichPushServiceExtension`, run by `ExtensionHost`
/// as iOS runs an extension (budget, `serviceExtensionTimeWillExpire()`, attachments moved).
enum HostedSimulation {
    /// What the simulation saw: the pipeline's delivered result (content as shown) and the host's report.
    struct Outcome: Sendable {
        /// The result, with `content` replaced by what the host showed (files in the host store).
        var result: RichPushResult
        /// The host's report.
        var report: HostReport
    }

    /// Runs one payload through the bridge in the host.
    /// - Parameters:
    ///   - payload: the payload bytes.
    ///   - configuration: the pipeline configuration (its `attachmentsDirectory` is the extension's folder).
    ///   - transport: the media transport.
    ///   - budget: the host's budget in seconds.
    ///   - store: the host's store, where shown attachments end up.
    ///   - communication: what the played system does with a message intent.
    /// - Returns: the result and the report.
    static func run(
        payload: Data, configuration: RichPushConfiguration, transport: any MediaTransport, budget: Double, store: URL,
        communication: ExtensionHost.CommunicationSupport = .allowed
    ) async -> Outcome {
        let service = SimulatedNotificationService(configuration: configuration, transport: transport)
        let request = PushRequest.make(payload: payload, identifier: "simulate-\(UUID().uuidString.lowercased())")
        var host = ExtensionHost(storeDirectory: store, budget: budget)
        host.communication = communication
        let report = await host.run(request, on: service)
        let observed = service.observed
        var result =
            observed.result
            ?? RichPushResult(
                outcome: .original, reason: nil, httpStatus: nil, pushID: nil, elapsedMs: report.elapsedMs,
                content: RichPushNotificationContent(), receipt: .skipped, mediaURL: nil,
                message: "the extension did not hand over content in time; iOS showed the original")
        if let run = observed.run { result.receipt = await run.waitUntilSettled() }
        let shown = report.shown
        result.content = RichPushNotificationContent(
            title: shown.title, subtitle: shown.subtitle, body: shown.body, categoryIdentifier: shown.categoryIdentifier,
            threadIdentifier: shown.threadIdentifier, badge: shown.badge, sound: shown.sound,
            attachments: shown.attachments.map {
                RichPushNotificationContent.Attachment(identifier: $0.identifier, file: $0.file.path, type: $0.type, bytes: $0.bytes)
            })
        return Outcome(result: result, report: report)
    }

    /// The host's lines of the readable summary.
    /// - Parameter report: the host's report.
    /// - Returns: lines aligned with `SimulateCommand.summary`, ending in a newline.
    static func summary(_ report: HostReport) -> String {
        let label = "host".padding(toLength: 12, withPad: " ", startingAt: 0)
        var line = label + "content handler called \(report.handlerCalls)×"
        line += report.expiryCalled ? ", serviceExtensionTimeWillExpire() called" : ", no expiry"
        if report.shownOriginal { line += ", original content shown" }
        if let peak = report.peakMemoryBytes {
            let mb = Double(peak) / 1_048_576
            let limit = Double(ProcessMemory.extensionLimitBytes) / 1_048_576
            line += String(
                format:
                    "\n%@peak memory %.1f MB for this whole Linux process (Swift runtime and Foundation alone are ~23 MB here);\n%@not comparable with iOS's ~%.0f MB extension limit, which counts the extension's own memory",
                "".padding(toLength: 12, withPad: " ", startingAt: 0), mb, "".padding(toLength: 12, withPad: " ", startingAt: 0), limit)
        }
        if let shown = report.shown.communication {
            var what = "shows a communication notification from \(shown.senderName)"
            if shown.isGroup, let group = shown.groupName { what += " in the group \(group)" }
            let avatars = [("sender", shown.senderAvatar), ("group", shown.groupAvatar)].compactMap { whose, avatar in
                avatar.map { "\(whose)'s avatar \($0.bytes) bytes \($0.format?.name ?? "unknown")" + ($0.drawable ? "" : " (not drawn)") }
            }
            line += "\n" + "".padding(toLength: 12, withPad: " ", startingAt: 0) + what + (avatars.isEmpty ? "" : "; " + avatars.joined(separator: ", "))
        }
        for fault in report.faults { line += "\n" + "".padding(toLength: 12, withPad: " ", startingAt: 0) + "fault: \(fault)" }
        return line + "\n"
    }

    /// The `"host"` object of `--json`.
    /// - Parameter report: the host's report.
    /// - Returns: `{"expiryCalled", "handlerCalls", "attachmentsMovedTo", "peakMemoryBytes",
    ///   "communication": {"senderName", "senderId", "conversationId", "groupName", "group",
    ///   "senderAvatar": {"bytes", "type", "drawable"}, "groupAvatar"} or null, "faults"}`.
    static func json(_ report: HostReport) -> RichPushJSONValue {
        func avatar(_ a: ShownCommunication.Avatar?) -> RichPushJSONValue {
            a.map { .object(["bytes": .int($0.bytes), "type": $0.format.map { .string($0.uniformTypeIdentifier) } ?? .null, "drawable": .bool($0.drawable)]) }
                ?? .null
        }
        let communication: RichPushJSONValue =
            report.shown.communication.map { c in
                .object([
                    "senderName": .string(c.senderName), "senderId": c.senderID.map(RichPushJSONValue.string) ?? .null,
                    "conversationId": c.conversationID.map(RichPushJSONValue.string) ?? .null, "groupName": c.groupName.map(RichPushJSONValue.string) ?? .null,
                    "group": .bool(c.isGroup), "senderAvatar": avatar(c.senderAvatar), "groupAvatar": avatar(c.groupAvatar),
                ])
            } ?? .null
        return .object([
            "expiryCalled": .bool(report.expiryCalled),
            "handlerCalls": .int(report.handlerCalls),
            "attachmentsMovedTo": .array(report.attachmentsMovedTo.map(RichPushJSONValue.string)),
            "peakMemoryBytes": report.peakMemoryBytes.map(RichPushJSONValue.int) ?? .null,
            "communication": communication,
            "faults": .array(report.faults.map { .string($0.description) }),
        ])
    }
}
#endif
