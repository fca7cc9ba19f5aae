/// One `richpush` subcommand: its name, help and entry point.
///
/// Each command lives in its own file under `Commands/` as `enum XCommand { static let spec = CommandSpec(…) }`
/// and is listed in `RichPushCommandLine.commands`.
public struct CommandSpec: Sendable {
    /// The subcommand name, e.g. `simulate`.
    public let name: String
    /// One line for `richpush --help`.
    public let summary: String
    /// The usage line, e.g. `richpush simulate PAYLOAD.json [options]`.
    public let usage: String
    /// Paragraphs after the usage line (examples, exit status), or `nil`.
    public let discussion: String?
    /// The options the command accepts.
    public let options: [ParsedArguments.Option]
    /// Runs the command with parsed arguments (`--help` already handled) and returns the exit
    /// status; throws `UsageError` (exit 64) or `RichPushError` (exit 1), printed by the dispatcher.
    public let run: @Sendable (ParsedArguments) async throws -> Int32

    /// Declares a command.
    ///
    /// - Parameters:
    ///   - name: the subcommand name.
    ///   - summary: one line for the command list.
    ///   - usage: the usage line.
    ///   - discussion: paragraphs after the usage line.
    ///   - options: the accepted options.
    ///   - run: the entry point.
    public init(
        name: String, summary: String, usage: String, discussion: String? = nil,
        options: [ParsedArguments.Option], run: @escaping @Sendable (ParsedArguments) async throws -> Int32
    ) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.discussion = discussion
        self.options = options
        self.run = run
    }

    /// The rendered `--help` text.
    public var helpText: String {
        HelpFormatter.render(summary: summary, usage: usage, discussion: discussion, options: options)
    }
}
