import Foundation

/// Command-line arguments parsed against a command's declared options.
///
/// Accepts `--name value`, `--name=value`, repeated options, boolean flags, `--` to end options,
/// and positionals. Unknown options and missing values are usage errors that name the option and
/// point to `--help`.
public struct ParsedArguments: Sendable {
    /// An option a command accepts.
    public struct Option: Sendable {
        /// The long name without dashes, e.g. `deadline`.
        public let name: String
        /// A one-letter alias without the dash, e.g. `h`.
        public let short: Character?
        /// The placeholder shown in help, e.g. `SECONDS`; `nil` for a boolean flag.
        public let valueName: String?
        /// Whether the option may be given more than once.
        public let repeatable: Bool
        /// The help text (one or more lines).
        public let help: String

        /// Declares an option that takes a value.
        public static func value(_ name: String, _ valueName: String, repeatable: Bool = false, help: String) -> Option {
            Option(name: name, short: nil, valueName: valueName, repeatable: repeatable, help: help)
        }

        /// Declares a boolean flag.
        public static func flag(_ name: String, short: Character? = nil, help: String) -> Option {
            Option(name: name, short: short, valueName: nil, repeatable: false, help: help)
        }
    }

    /// The command's name, for messages.
    public let command: String
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    /// The positional arguments, in order.
    public private(set) var positionals: [String] = []

    /// Parses `arguments` (without the program and command names).
    ///
    /// - Parameters:
    ///   - arguments: the raw arguments.
    ///   - options: the options the command declares (`--help` is always accepted).
    ///   - command: the command name, used in error messages.
    /// - Throws: `UsageError` naming the unknown option, the missing value or the repeated option.
    public init(_ arguments: [String], options: [Option], command: String) throws {
        self.command = command
        var index = arguments.startIndex
        var onlyPositionals = false
        while index < arguments.endIndex {
            let arg = arguments[index]
            index += 1
            if onlyPositionals || !arg.hasPrefix("-") || arg == "-" {
                positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            if arg == "--help" || arg == "-h" {
                flags.insert("help")
                continue
            }
            var name: String
            var inlineValue: String?
            if arg.hasPrefix("--") {
                name = String(arg.dropFirst(2))
                if let eq = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
            } else {
                let letter = arg.dropFirst().first
                guard arg.count == 2, let option = options.first(where: { $0.short == letter }) else {
                    throw UsageError(command: command, message: "unknown option '\(arg)'")
                }
                name = option.name
            }
            guard let option = options.first(where: { $0.name == name }) else {
                var message = "unknown option '--\(name)'"
                if let suggestion = Self.suggestion(for: name, among: options.map(\.name)) { message += " (did you mean '--\(suggestion)'?)" }
                throw UsageError(command: command, message: message)
            }
            if option.valueName == nil {
                if inlineValue != nil {
                    throw UsageError(command: command, message: "'--\(name)' is a flag and takes no value")
                }
                flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.endIndex else {
                    throw UsageError(command: command, message: "'--\(name)' needs a value (\(option.valueName ?? "VALUE"))")
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable, values[name] != nil {
                throw UsageError(command: command, message: "'--\(name)' was given more than once")
            }
            values[name, default: []].append(value)
        }
    }

    /// Whether `--help` or `-h` was given.
    public var wantsHelp: Bool { flags.contains("help") }

    /// Whether a boolean flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of a single-valued option, if given.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option, in order.
    public func values(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of an option, else of the environment variable that stands for it when the
    /// option is absent (an empty variable counts as unset).
    ///
    /// - Parameters:
    ///   - name: the option name.
    ///   - variable: the environment variable, e.g. `RICHPUSH_APNS_KEY`.
    ///   - environment: the environment (default: the process's).
    /// - Returns: the value, or `nil` when neither is given.
    public func value(_ name: String, orEnvironment variable: String, _ environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        value(name) ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A number of seconds (fractions allowed), validated to lie in a range.
    ///
    /// - Parameters:
    ///   - name: the option name.
    ///   - range: the accepted range, in seconds.
    /// - Returns: the value, or `nil` when the option was not given.
    /// - Throws: `UsageError` when the value is not a number in range.
    public func seconds(_ name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let raw = value(name) else { return nil }
        guard let v = Double(raw), v.isFinite, range.contains(v) else {
            throw UsageError(
                command: command,
                message: "'--\(name) \(raw)' must be a number of seconds from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))"
            )
        }
        return v
    }

    /// An integer, validated to lie in a range.
    ///
    /// - Parameters:
    ///   - name: the option name.
    ///   - range: the accepted range.
    /// - Returns: the value, or `nil` when the option was not given.
    /// - Throws: `UsageError` when the value is not an integer in range.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let raw = value(name) else { return nil }
        guard let v = Int(raw), range.contains(v) else {
            throw UsageError(command: command, message: "'--\(name) \(raw)' must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return v
    }

    private static func format(_ d: Double) -> String {
        d == d.rounded() ? String(Int(d)) : String(d)
    }

    /// The option a mistyped name most likely meant, only when it is close: the one option it
    /// abbreviates (at least 3 letters), else the nearest by edit distance (a swap of two
    /// neighbours counts once) within a third of the name's length (1 to 3 edits).
    ///
    /// - Parameters:
    ///   - name: the unknown name, without dashes.
    ///   - names: the command's option names.
    /// - Returns: the suggestion, or `nil` when nothing is close (`--bogus` suggests nothing).
    static func suggestion(for name: String, among names: [String]) -> String? {
        let abbreviated = names.filter { $0.hasPrefix(name) }
        if name.count >= 3, abbreviated.count == 1 { return abbreviated[0] }
        let limit = Swift.max(1, Swift.min(3, name.count / 3))
        let scored = names.map { ($0, distance($0, name)) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Edit distance with adjacent transpositions (optimal string alignment): insertions,
    /// deletions, substitutions and swaps of two neighbours each count 1.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = Swift.min(current[j], before[j - 2] + 1)
                }
            }
            before = previous
            previous = current
        }
        return previous[b.count]
    }
}

/// A command-line usage error: exit status 64 (EX_USAGE) and a message that says what to fix.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    /// The command the error belongs to.
    public let command: String
    /// What was wrong.
    public let message: String

    public init(command: String, message: String) {
        self.command = command
        self.message = message
    }

    public var description: String {
        "richpush \(command): \(message)\nRun 'richpush \(command) --help' for the options."
    }
}
