/// Renders a command's help text from its declared options.
enum HelpFormatter {
    /// Formats help: summary, usage line, description, then one block per option.
    static func render(
        summary: String, usage: String, discussion: String?, options: [ParsedArguments.Option]
    ) -> String {
        var out = "\(summary)\n\nUSAGE: \(usage)\n"
        if let discussion { out += "\n\(discussion)\n" }
        let all = options + [.flag("help", short: "h", help: "Show this help.")]
        out += "\nOPTIONS:\n"
        for option in all {
            var left = "  --\(option.name)"
            if let short = option.short { left = "  -\(short), --\(option.name)" }
            if let valueName = option.valueName { left += " \(valueName)" }
            if option.repeatable { left += " (repeatable)" }
            let lines = option.help.split(separator: "\n", omittingEmptySubsequences: false)
            if left.count < 30 {
                out += left.padding(toLength: 30, withPad: " ", startingAt: 0) + (lines.first.map(String.init) ?? "") + "\n"
                for line in lines.dropFirst() { out += String(repeating: " ", count: 30) + line + "\n" }
            } else {
                out += left + "\n"
                for line in lines { out += String(repeating: " ", count: 30) + line + "\n" }
            }
        }
        return out
    }
}
