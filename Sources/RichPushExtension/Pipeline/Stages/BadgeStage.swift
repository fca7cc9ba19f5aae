import Foundation

/// Stage 5: the payload's `badge_op` (issue 6), applied to the counter in the shared container
/// once per push, so the best attempt already carries the new badge.
///
/// Its `prepare` is the pipeline's one write before any network work (the counter's file, under
/// its lock); nothing happens when the payload has no `badge_op`. Without a shared container the
/// payload's `aps.badge` stays as sent (`badge_no_container`).
struct BadgeStage: PipelineStage {
    /// The shared container's state directory (`RichPushConfiguration.stateDirectory`).
    let stateDirectory: URL?
    /// Where the push id is looked for (a second run for the same push counts once).
    let pushIDKeyPaths: [RichPushPayloadKeyPath]

    func prepare(_ work: inout PipelineWork) {
        guard let json = work.json, let raw = json[BadgeOperation.payloadKey] else { return }
        guard let operation = BadgeOperation(json: raw) else {
            work.best.details.notes.append("invalid_badge_op")
            return
        }
        guard let directory = stateDirectory else {
            work.best.details.notes.append("badge_no_container")
            return
        }
        let pushID = RichPushPayloadLookup.pushID(in: json, keyPaths: pushIDKeyPaths)?.value
        // A second run for the same push (iOS retry, provider resend) must not count twice.
        let first = pushID.map { (try? SeenPushStore(directory: directory).markSeen("badge:" + $0)) ?? true } ?? true
        let badge: Int?
        if first {
            badge = try? RichPushBadgeCounter(directory: directory).apply(operation)
            if badge == nil { work.best.details.notes.append("badge_io") }
        } else {
            badge = try? RichPushBadgeCounter(directory: directory).current()
            work.best.details.notes.append("badge_repeat")
        }
        work.best.details.badge = badge
        if let badge, work.payload != nil { work.best.content.badge = badge }
    }
}
