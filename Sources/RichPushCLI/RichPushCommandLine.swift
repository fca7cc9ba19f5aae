import Foundation
import RichPushCore
import RichPushMedia
import RichPushProvider

/// The `richpush` command line: dispatches to a subcommand and maps errors to exit statuses.
public enum RichPushCommandLine {
    /// Every subcommand, in the order `richpush --help` lists them.
    static let commands: [CommandSpec] = [
        // Each side adds its commands here, one line each.
        SimulateCommand.spec,
        LintCommand.spec,
        SendCommand.spec,
        EncryptCommand.spec,
        ServeCommand.spec,
        StatsCommand.spec,
        RecordSendCommand.spec,
        MigrateCommand.spec,
        DoctorCommand.spec,
        MediaCommand.spec,
        CampaignCommand.spec,
    ]

    /// Exit status for a command-line usage error (sysexits.h `EX_USAGE`).
    public static let usageExitStatus: Int32 = 64

    /// Process-wide settings, made first thing in `main` before anything uses OpenSSL: libcrypto
    /// must not run its `atexit` cleanup while another thread may still be in it (a crash at exit
    /// after the work was done; see `OpenSSLExitCleanup`).
    public static func prepareProcess() {
        OpenSSLExitCleanup.disable()
    }

    /// Runs `richpush` with the given arguments.
    ///
    /// - Parameter arguments: the arguments after the program name.
    /// - Returns: the exit status.
    public static func main(_ arguments: [String]) async -> Int32 {
        guard let first = arguments.first else {
            printError(topLevelHelp)
            return usageExitStatus
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1, let command = commands.first(where: { $0.name == arguments[1] }) {
                return printOutput(command.helpText, command: "help")
            }
            return printOutput(topLevelHelp, command: nil)
        }
        if first == MediaWorker.argument {
            // Not a command: `richpush serve` and `richpush media` start their media workers so.
            return MediaWorker.main(Array(arguments.dropFirst()))
        }
        if first == "--version" {
            return printOutput(RichPushVersion.current + "\n", command: nil)
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            printError("richpush: unknown command '\(first)'. Commands: \(commands.map(\.name).joined(separator: ", ")).\nRun 'richpush --help' for usage.")
            return usageExitStatus
        }
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), options: command.options, command: command.name)
            if parsed.wantsHelp {
                return printOutput(command.helpText, command: command.name)
            }
            return try await command.run(parsed)
        } catch is StandardOutput.ClosedPipe {
            // Whoever read standard output has stopped (`| head -1`): stop quietly, as SIGPIPE would.
            return StandardOutput.closedPipeExitStatus
        } catch let error as UsageError {
            printError(error.description)
            return usageExitStatus
        } catch let error as RichPushError {
            printError("richpush \(command.name): \(error.message)")
            return 1
        } catch {
            printError("richpush \(command.name): \(error)")
            return 1
        }
    }

    static var topLevelHelp: String {
        var out = """
            richpush — rich iOS push notifications, end to end.

            USAGE: richpush <command> [options]

            COMMANDS:

            """
        for command in commands {
            out += "  " + command.name.padding(toLength: 12, withPad: " ", startingAt: 0) + command.summary + "\n"
        }
        out += "\nRun 'richpush <command> --help' for a command's options.\n"
        return out
    }

    /// Writes help or version text to standard output.
    /// - Returns: 0, or the status of a failed write (1; 141 for a closed pipe) after its message.
    static func printOutput(_ text: String, command: String?) -> Int32 {
        do {
            try StandardOutput.write(Data(text.utf8))
            return 0
        } catch is StandardOutput.ClosedPipe {
            return StandardOutput.closedPipeExitStatus
        } catch {
            printError("richpush\(command.map { " " + $0 } ?? ""): \((error as? RichPushError)?.message ?? "\(error)")")
            return 1
        }
    }

    /// Writes a line to standard error.
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
    }
}

/// The RichPush version string.
public enum RichPushVersion {
    /// The current version.
    public static let current = "0.11.0"
}
