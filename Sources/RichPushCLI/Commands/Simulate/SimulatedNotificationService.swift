#if !canImport(UserNotifications)
import Foundation
@_spi(RichPushInternal) import RichPushCore
@_spi(RichPushInternal) import RichPushExtension
@_spi(RichPushInternal) import RichPushNotificationService
import UserNotificationsStandIn

/// The real bridge with the command line's transport, recording what it delivered.
final class SimulatedNotificationService: RichPushServiceExtension {
    private let transport: any MediaTransport
    private let seen = Locked<(result: RichPushResult?, run: PipelineRun?)>((nil, nil))

    init(configuration: RichPushConfiguration, transport: any MediaTransport) {
        self.transport = transport
        super.init(configuration: configuration)
    }

    /// The delivered result and the run, once known.
    var observed: (result: RichPushResult?, run: PipelineRun?) {
        seen.withLock { $0 }
    }

    override func makePipeline(configuration: RichPushConfiguration) -> NotificationPipeline {
        NotificationPipeline(configuration: configuration, transport: transport)
    }

    override func didStart(_ run: PipelineRun, for request: UNNotificationRequest) {
        seen.withLock { $0.run = run }
    }

    override func willDeliver(_ content: UNMutableNotificationContent, for request: UNNotificationRequest, result: RichPushResult) {
        seen.withLock { $0.result = result }
    }
}
#endif
