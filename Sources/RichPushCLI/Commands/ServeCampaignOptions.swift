import Foundation
import RichPushServer

/// `richpush serve --campaign-workers N --campaign-lease-seconds S --campaign-chunk-size N
/// --campaign-targets-days D`: how this instance sends campaigns (`POST /v1/campaigns`) and how
/// long it keeps finished campaigns' per-token targets; `--recipients-days D`: how long receipts
/// keep the device they named (per-device receipts) and conversions their user.
enum ServeCampaignOptions {
    /// The options, for `ServeCommand.spec`.
    static let options: [ParsedArguments.Option] = [
        .value(
            "campaign-workers", "N",
            help: "Campaign sender workers in this instance (default 2, 0…64; 0 = this\ninstance takes campaign requests but sends none)."),
        .value(
            "campaign-lease-seconds", "S",
            help: "How long a campaign chunk's lease holds without renewal (default 30):\nan instance's chunks are taken over this long after it died."),
        .value(
            "campaign-chunk-size", "N",
            help: "Targets per campaign chunk, the unit a worker leases (default 500,\n1…10000; also the most a crash leaves in flight per worker)."),
        .value(
            "campaign-targets-days", "D",
            help:
                "Days a finished or cancelled campaign's per-token targets are kept\n(default 30, 0…3650; 0 = forever); then deleted in batches, the\ncampaign and its counters stay."
        ),
        .value(
            "recipients-days", "D",
            help:
                "Days a receipt keeps the device it named (per-device receipts) and a\nconversion its user (default 90, 0…3650; 0 = forever); then they are\nanonymous, the counts stay."
        ),
    ]

    /// Reads the options into `configuration`.
    ///
    /// - Parameters:
    ///   - args: the parsed arguments.
    ///   - configuration: the server configuration to fill.
    /// - Throws: `UsageError` for a value out of range.
    static func apply(_ args: ParsedArguments, to configuration: inout ServerConfiguration) throws {
        if let raw = args.value("campaign-workers") {
            guard let n = Int(raw), (0...CampaignSettings.maximumWorkers).contains(n) else {
                throw UsageError(command: "serve", message: "'--campaign-workers \(raw)' must be an integer from 0 to \(CampaignSettings.maximumWorkers)")
            }
            configuration.campaigns.workers = n
        }
        if let raw = args.value("campaign-lease-seconds") {
            guard let seconds = Double(raw), seconds.isFinite, seconds >= 1, seconds <= 3600 else {
                throw UsageError(command: "serve", message: "'--campaign-lease-seconds \(raw)' must be a number of seconds from 1 to 3600")
            }
            configuration.campaigns.leaseSeconds = seconds
        }
        if let raw = args.value("campaign-chunk-size") {
            guard let n = Int(raw), (1...CampaignSettings.maximumChunkSize).contains(n) else {
                throw UsageError(
                    command: "serve", message: "'--campaign-chunk-size \(raw)' must be an integer from 1 to \(CampaignSettings.maximumChunkSize)")
            }
            configuration.campaigns.chunkSize = n
        }
        if let raw = args.value("campaign-targets-days") {
            let maximum = CampaignSettings.maximumRetentionDays
            guard raw.utf8.count <= 8, let days = Int(raw), (0...maximum).contains(days) else {
                throw UsageError(
                    command: "serve",
                    message:
                        "'--campaign-targets-days \(raw)' must be a whole number of days from 0 to \(maximum) (0 keeps finished campaigns' targets forever)")
            }
            configuration.campaigns.targetsRetentionDays = days
        }
        if let raw = args.value("recipients-days") {
            let maximum = CampaignSettings.maximumRetentionDays
            guard raw.utf8.count <= 8, let days = Int(raw), (0...maximum).contains(days) else {
                throw UsageError(
                    command: "serve",
                    message: "'--recipients-days \(raw)' must be a whole number of days from 0 to \(maximum) (0 keeps who saw each push forever)")
            }
            configuration.recipientsRetentionDays = days
        }
    }
}
