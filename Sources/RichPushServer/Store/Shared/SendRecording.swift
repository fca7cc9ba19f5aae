/// What `recordSend` did with a batch of sends.
public enum SendRecording: Sendable, Equatable {
    /// Recorded: the push's counts grew by the batch's.
    case recorded
    /// The same batch id was recorded before with the same counts: nothing changed (a retry).
    case duplicate
    /// The same batch id was recorded before with other counts or another source: nothing
    /// changed; the figures already recorded are given.
    case conflict(source: String, sent: Int, accepted: Int, skipped: Int)
}
