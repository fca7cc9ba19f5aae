import Foundation
@_spi(RichPushInternal) import RichPushCore

/// One notification as the stages see it: the payload as each stage leaves it for the next, the
/// best attempt being built, and what each stage prepared for its later steps.
///
/// A value: `prepare` steps change it in order; `run`, `conclude` and `finish` read it.
struct PipelineWork: Sendable {
    /// The payload as received: a JSON value, or why it was not one.
    enum Input: Sendable {
        case parsed(RichPushJSONValue)
        case unreadable(String)
    }

    /// The payload as the stages read it (after decryption); `nil` when it was not JSON.
    var json: RichPushJSONValue?
    /// The payload model; `nil` when the payload is not one (`problem` says why).
    var payload: RichPushNotificationPayload?
    /// Why the payload is not one, when it is not.
    var problem: String?
    /// The best attempt: what is delivered if no network work completes.
    var best: RichPushResult

    /// `DecryptStage`: the envelope as opened (`nil` when the payload was not JSON).
    var decryption: DecryptedPayload?
    /// `ContentStage`: the category the payload's `buttons` make, and whether `aps.category` named it.
    var buttons: RichPushCategoryDescription?
    /// `ContentStage`: whether the payload names its own `aps.category`.
    var payloadNamesCategory = false
    /// `MediaStage`: the media URLs named and how each was read.
    var media = MediaPlan()
    /// `CommunicationStage`: the message's sender and conversation, when the payload names them.
    var message: RichPushMessage?

    /// Starts the work on a payload: nothing read yet, the best attempt empty.
    /// - Parameter input: the payload as received.
    init(_ input: Input) {
        switch input {
        case .parsed(let json):
            self.json = json
        case .unreadable(let problem):
            self.problem = problem
        }
        best = RichPushResult(
            outcome: .original, reason: .invalidPayload, httpStatus: nil, pushID: nil, elapsedMs: 0, content: RichPushNotificationContent(),
            receipt: RichPushReceiptReport(status: .pending), message: "invalid payload: \(problem ?? "unreadable")")
    }

    /// Whether the payload can be processed (it parsed as a notification payload).
    var isReadable: Bool { payload != nil }
}
