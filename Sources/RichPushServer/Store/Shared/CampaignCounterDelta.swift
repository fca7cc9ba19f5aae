import Foundation

/// How a batch of results changes a campaign's counters (both stores count the same way).
struct CampaignCounterDelta: Sendable, Equatable {
    var sent = 0
    var accepted = 0
    var skipped = 0
    var failed = 0
    /// Targets that were in flight and are no longer (a result, or back to pending).
    var leftFlight = 0

    /// Counts one result for a target without one.
    ///
    /// - Parameters:
    ///   - result: the result.
    ///   - wasInFlight: whether the target was marked in flight.
    mutating func add(_ result: CampaignTargetResult, wasInFlight: Bool) {
        if wasInFlight { leftFlight += 1 }
        if result.isNotSent { return }
        if result.status != nil { sent += 1 }
        if result.outcome == "accepted" {
            accepted += 1
        } else if result.outcome == "skipped" {
            skipped += 1
        } else {
            failed += 1
        }
    }
}
