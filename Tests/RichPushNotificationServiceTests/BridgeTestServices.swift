#if !canImport(UserNotifications)
import Foundation
@_spi(RichPushInternal) import RichPushExtension
@_spi(RichPushInternal) import RichPushNotificationService
import UserNotificationsStandIn

/// Grows the downloaded image past Apple's 10 MB limit before the real validation runs.
final class OversizingService: RecordingService {
    override func validateAttachment(_ media: RichPushDownloadedMedia) throws {
        let handle = try FileHandle(forWritingTo: media.file)
        try handle.truncate(atOffset: UInt64(RichPushMediaKind.image.maximumBytes + 1))
        try handle.close()
        try super.validateAttachment(media)
    }
}

/// Removes the downloaded file after it passed validation, before delivery.
final class VanishingFileService: RecordingService {
    override func validateAttachment(_ media: RichPushDownloadedMedia) throws {
        try super.validateAttachment(media)
        try FileManager.default.removeItem(at: media.file)
    }
}

/// The real bridge with a long wait for category registrations: the tests that check a category is
/// registered before the notification is shown must not depend on how loaded the machine is (the
/// 2 s default bound is production's answer to a center that does not answer).
class PatientService: RichPushServiceExtension {
    override var categoryRegistrationWait: Double { 20 }
}

/// The real bridge, recording what it delivered and its run.
class RecordingService: RichPushServiceExtension {
    private let lock = NSLock()
    private var result: RichPushResult?
    private var run: PipelineRun?

    var delivered: RichPushResult? { lock.withLock { result } }

    func settledReceipt() async -> RichPushReceiptReport? {
        guard let run = lock.withLock({ run }) else { return nil }
        return await run.waitUntilSettled()
    }

    override func didStart(_ run: PipelineRun, for request: UNNotificationRequest) {
        lock.withLock { self.run = run }
    }

    override func willDeliver(_ content: UNMutableNotificationContent, for request: UNNotificationRequest, result: RichPushResult) {
        lock.withLock { self.result = result }
    }
}
#endif
