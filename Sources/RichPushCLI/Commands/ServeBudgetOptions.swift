import Foundation
import RichPushCore
import RichPushServer

/// `richpush serve --new-rows-per-address N --new-rows-per-second R`: the per-address budget for
/// rows anonymous requests create (receipts naming new push ids, new device tokens; see
/// `docs/limits.md`).
enum ServeBudgetOptions {
    /// The two options, for `serve --help`.
    static let options: [ParsedArguments.Option] = [
        .value(
            "new-rows-per-address", "N",
            help:
                "New push ids (receipts) and device tokens one client address may create\nat once without the admin token (default 2000; 0 = no budget); past it 429\nover_budget with Retry-After. Known push ids and tokens always pass."
        ),
        .value("new-rows-per-second", "R", help: "How fast an address regains new rows (default 2 a second; fractions allowed)."),
    ]

    /// Reads the two options into `configuration`.
    ///
    /// - Parameters:
    ///   - args: the parsed arguments.
    ///   - configuration: the server configuration to fill.
    /// - Throws: `UsageError` for a value out of range.
    static func apply(_ args: ParsedArguments, to configuration: inout ServerConfiguration) throws {
        if let n = try args.integer("new-rows-per-address", in: 0...100_000_000) { configuration.newRowsBurst = n }
        if let raw = args.value("new-rows-per-second") {
            guard let rate = Double(raw), rate.isFinite, rate > 0, rate <= 1_000_000 else {
                throw UsageError(command: "serve", message: "'--new-rows-per-second \(raw)' must be a number above 0 and at most 1000000")
            }
            configuration.newRowsPerSecond = rate
        }
    }
}
