import Foundation

/// Stage 1: opens the payload's `enc` envelope (issue 6) before anything reads the payload, so
/// the best attempt already shows the decrypted text.
///
/// A failure keeps the server's clear alert and makes `decrypt_failed` the reason whenever no
/// media was attached (the sub-reason is `details.decryption`).
struct DecryptStage: PipelineStage {
    /// The keys; `nil` makes every envelope fail with `unknown_kid`.
    let keys: (any RichPushKeyProvider)?
    /// Where the clear push id a version-2 envelope is bound to is looked for.
    let pushIDKeyPaths: [RichPushPayloadKeyPath]

    func prepare(_ work: inout PipelineWork) {
        guard let received = work.json else { return }
        let opened = DecryptedPayload.open(received, keys: keys, pushIDKeyPaths: pushIDKeyPaths)
        work.decryption = opened
        work.json = opened.payload
    }

    func finish(_ result: inout RichPushResult, work: PipelineWork) {
        guard let decryption = work.decryption else { return }
        result.details.decryption = decryption.wasEncrypted ? (decryption.error?.code.rawValue ?? "decrypted") : nil
        if let error = decryption.error, result.outcome == .textOnly {
            result.reason = .decryptFailed
            result.message = "the encrypted payload could not be decrypted (\(error.code)); the server's alert is shown"
        }
    }
}
