#if !canImport(UserNotifications)
import Foundation
import RichPushExtension
import RichPushNotificationService
import UserNotificationsStandIn

/// The real bridge with the command line's transport, recording what it delivered.
final class SimulatedNotificationService: RichPushServiceExtension {
    private let transport: any MediaTransport
    private let lock = NSLock()
    private var deliveredResult: PipelineResult?
    private var startedRun: PipelineRun?

    init(configuration: PipelineConfiguration, transport: any MediaTransport) {
        self.transport = transport
        super.init(configuration: configuration)
    }

    /// The delivered result and the run, once known.
    var observed: (result: PipelineResult?, run: PipelineRun?) {
        lock.withLock { (deliveredResult, startedRun) }
    }

    override func makePipeline(configuration: PipelineConfiguration) -> NotificationPipeline {
        NotificationPipeline(configuration: configuration, transport: transport)
    }

    override func didStart(_ run: PipelineRun, for request: UNNotificationRequest) {
        lock.withLock { startedRun = run }
    }

    override func willDeliver(_ content: UNMutableNotificationContent, for request: UNNotificationRequest, result: PipelineResult) {
        lock.withLock { deliveredResult = result }
    }
}
#endif
