import Foundation
import RichPushServer

/// `richpush serve --idempotency-hours H --idempotency-lease-minutes M`: how long `POST
/// /v1/pushes` replays an `Idempotency-Key`'s answer, and how long a key whose request died
/// mid-send holds before a retry may send again.
enum ServeIdempotencyOptions {
    /// Reads the two options into `configuration`.
    ///
    /// - Parameters:
    ///   - args: the parsed arguments.
    ///   - configuration: the server configuration to fill.
    /// - Throws: `UsageError` for a value that is not a positive number in range.
    static func apply(_ args: ParsedArguments, to configuration: inout ServerConfiguration) throws {
        if let raw = args.value("idempotency-hours") {
            guard let hours = Double(raw), hours.isFinite, hours > 0, hours <= 720 else {
                throw UsageError(command: "serve", message: "'--idempotency-hours \(raw)' must be a number of hours above 0 and at most 720 (30 days)")
            }
            configuration.idempotencyWindow = hours * 3600
        }
        if let raw = args.value("idempotency-lease-minutes") {
            guard let minutes = Double(raw), minutes.isFinite, minutes > 0, minutes <= 1440 else {
                throw UsageError(
                    command: "serve", message: "'--idempotency-lease-minutes \(raw)' must be a number of minutes above 0 and at most 1440 (a day)")
            }
            configuration.idempotencyLease = minutes * 60
        }
    }
}
