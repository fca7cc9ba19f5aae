#if !canImport(UserNotifications)
import Foundation
import UserNotificationsStandIn

/// A request for the host to hand to an extension, and when.
public struct HostedRequest {
    /// The request, as the system would build it from the push.
    public var request: UNNotificationRequest
    /// Seconds after the run starts before `didReceive` is called (to make requests overlap).
    public var startAfter: Double

    /// Makes a hosted request.
    /// - Parameters:
    ///   - request: the request.
    ///   - startAfter: seconds after the run starts; 0 for at once.
    public init(_ request: UNNotificationRequest, startAfter: Double = 0) {
        self.request = request
        self.startAfter = startAfter
    }
}
#endif
