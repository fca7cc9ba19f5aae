import Foundation
import RichPushCore
import RichPushServer

/// `richpush migrate`: copies a SQLite store into PostgreSQL (issue 9).
enum MigrateCommand {
    static let spec = CommandSpec(
        name: "migrate",
        summary: "Copy a SQLite store into PostgreSQL (to run several richpush serve on it).",
        usage: "richpush migrate --from sqlite:./richpush.sqlite --to postgres://user@host:5432/dbname [--batch 5000]",
        discussion: """
            Copies receipts, pushes, send records (per-token results), device-token states,
            recorded send batches (with their sources), the devices apps registered (with their
            tags), the media edge's records and files, campaigns (with their targets and
            chunks: a running campaign goes on from PostgreSQL), the webhook outbox and its
            endpoints' figures and the admitted codes from the SQLite file `richpush serve`
            used into a PostgreSQL database, creating the schema there if needed. Receipts go through the PostgreSQL store's own insert: a
            receipt already there (same push_id, event, receipt_id) is not counted again, so the
            target may already hold receipts from instances running on it.

            Safe to re-run: each batch commits together with how far the copy got (per source
            file), so a second run, or a run after an interrupted one, copies only what is left
            and never counts anything twice. Stop the SQLite server first: the copy is of the
            file as it was when the run started.

            Shows a progress bar on a terminal (plain lines otherwise), then one line per table.
            Exit status: 0 when everything was copied, 1 on an error (what was committed stays;
            run the same command again to go on), 64 for a usage error.

            Example:
              richpush migrate --from sqlite:./richpush.sqlite --to postgres://richpush@db.internal:5432/richpush
              RICHPUSH_DB_URL=postgres://… richpush migrate --from ./richpush.sqlite
            """,
        options: [
            .value("from", "sqlite:PATH", help: "The SQLite store to copy (sqlite:PATH, file:PATH or a path)."),
            .value(
                "to", "URL",
                help:
                    "The PostgreSQL database: postgres://user[:password]@host[:port]/dbname\n[?sslmode=require&…] (default $RICHPUSH_DB_URL; PGPASSWORD and\n~/.pgpass work as for psql)."
            ),
            .value("batch", "N", help: "Rows per transaction (100…50000, default 5000)."),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        if let extra = args.positionals.first {
            throw UsageError(command: "migrate", message: "unexpected argument '\(extra)'; give --from sqlite:PATH and --to postgres://…")
        }
        guard let fromText = args.value("from"), !fromText.isEmpty else {
            throw UsageError(command: "migrate", message: "give the SQLite store to copy with --from sqlite:./richpush.sqlite")
        }
        guard case .sqlite(let path) = StoreLocation.parse(fromText) else {
            throw UsageError(
                command: "migrate", message: "--from must be a SQLite file (sqlite:PATH or a path), not '\(PostgresConnectionInfo.redact(fromText))'")
        }
        guard let toText = args.value("to", orEnvironment: StoreLocation.environmentVariable), !toText.isEmpty else {
            throw UsageError(command: "migrate", message: "give the PostgreSQL database with --to postgres://user@host:5432/dbname (or RICHPUSH_DB_URL)")
        }
        guard PostgresConnectionInfo.isPostgresURL(toText) else {
            throw UsageError(
                command: "migrate", message: "--to must be a PostgreSQL URL (postgres://user@host:5432/dbname), not '\(PostgresConnectionInfo.redact(toText))'")
        }
        let batch = try args.integer("batch", in: 100...50_000) ?? 5_000

        let migration = try SQLiteToPostgresMigration(sqlitePath: path, postgresURL: toText, chunkSize: batch, names: SettingNames.store)
        defer { try? migration.close() }
        FileHandle.standardError.write(Data("richpush migrate: \(path) → \(migration.target.info.redacted)\n".utf8))
        let display = MigrationProgressDisplay(terminal: isatty(STDERR_FILENO) == 1)
        let summaries = try migration.run { display.show($0) }
        display.finish()

        var out = ""
        for s in summaries {
            let name = s.table.count >= 13 ? s.table : s.table.padding(toLength: 13, withPad: " ", startingAt: 0)
            let copied = s.copied - s.skipped.count
            var line = "  \(name) \(copied) copied"
            if s.table == "receipts" {
                line += " (\(s.new) new, \(copied - s.new) already there)"
            }
            if s.copiedBefore > 0 { line += ", \(s.copiedBefore) copied by an earlier run" }
            if !s.skipped.isEmpty { line += ", \(s.skipped.count) skipped: the server's rules refuse them (rowids on standard error)" }
            out += line + "\n"
            // Rows the server would have refused are not copied; a re-run goes on past them.
            var refused = s.skipped.prefix(100).map { "richpush migrate: skipped \($0.table) row \($0.rowid): \($0.problem)\n" }.joined()
            if s.skipped.count > 100 { refused += "richpush migrate: … and \(s.skipped.count - 100) more \(s.table) rows skipped\n" }
            FileHandle.standardError.write(Data(refused.utf8))
        }
        let total = summaries.map(\.copied).reduce(0, +)
        out +=
            total == 0
            ? "nothing left to copy: the target is up to date with this file.\n" : "done: run `richpush serve --db <the same URL>` on each instance.\n"
        FileHandle.standardOutput.write(Data(out.utf8))
        return 0
    }
}
