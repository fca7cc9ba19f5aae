import Foundation
import RichPushCore
import RichPushProvider

/// `richpush lint --live-activity`: checks an ActivityKit payload with `LiveActivityLinter` (issue 31).
extension LintCommand {
    /// The options `--live-activity` adds to `lint`.
    static let liveActivityOptions: [ParsedArguments.Option] = [
        .flag(
            "live-activity",
            help: "Check it as an ActivityKit push (apns-push-type liveactivity): event, dates,\nstart's attributes-type/attributes/alert, 4 KB of data."),
        .value(
            "shape", "FILE", repeatable: true,
            help:
                "With --live-activity: the app's activity shape (JSON, docs/live-activities.md);\ncontent-state and attributes are checked against it."
        ),
        .value("attributes-type", "NAME", help: "With --live-activity: the attributes type of the activity an update or end is for."),
        .flag("broadcast", help: "With --live-activity: sent on a broadcast channel (5120 bytes; no start)."),
        .value("channel-policy", "0|1", help: "With --broadcast: the channel's message-storage-policy (0 takes only expiration 0)."),
        .value("expiration", "SECONDS", help: "With --broadcast: apns-expiration, seconds since 1970 (default 0)."),
        .value("priority", "N", help: "With --live-activity: apns-priority (5 or 10 to a device; 10, 5 or 1 on a channel)."),
    ]

    /// Lints `data` as an ActivityKit push and prints the findings as `lint` does.
    /// - Parameters:
    ///   - data: the payload bytes.
    ///   - path: the payload's file name, for the summary line.
    ///   - args: the parsed arguments.
    /// - Returns: the exit status: 1 when an error was found, else 0.
    /// - Throws: `UsageError` for a bad option value or shape file.
    static func runLiveActivity(_ data: Data, path: String, args: ParsedArguments) throws -> Int32 {
        if args.flag("fix") || args.flag("voip") {
            throw UsageError(command: "lint", message: "'--live-activity' does not take '--fix' or '--voip'")
        }
        func integer(_ name: String, _ allowed: ClosedRange<Int>) throws -> Int? {
            guard let text = args.value(name) else { return nil }
            guard let n = Int(text), allowed.contains(n) else {
                throw UsageError(
                    command: "lint", message: "--\(name) must be a whole number from \(allowed.lowerBound) to \(allowed.upperBound), not \"\(text)\"")
            }
            return n
        }
        let priority = try integer("priority", 0...10)
        let policyNumber = try integer("channel-policy", 0...1)
        let expiration = try integer("expiration", 0...4_294_967_295)
        let broadcast = args.flag("broadcast") || policyNumber != nil
        if !broadcast, expiration != nil {
            throw UsageError(command: "lint", message: "'--expiration' is checked on a channel only: add '--broadcast' (and '--channel-policy')")
        }
        var shapes: [ActivityShape] = []
        for file in args.values("shape") {
            let contents: Data
            do {
                contents = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw UsageError(command: "lint", message: "--shape: \(file) cannot be read: \(error.localizedDescription)")
            }
            do {
                shapes.append(try ActivityShape.parse(contents))
            } catch let error as RichPushError {
                throw UsageError(command: "lint", message: "--shape \(file): \(error.message)")
            }
        }
        let destination: LiveActivityLinter.Destination =
            broadcast
            ? .broadcast(policy: policyNumber.flatMap(APNsMessageStoragePolicy.init(rawValue:)), expiration: expiration ?? 0, priority: priority)
            : .device(priority: priority)
        var linter = LiveActivityLinter(destination: destination, shapes: shapes)
        linter.activityAttributesType = args.value("attributes-type")
        let findings = linter.lint(data)
        let json = args.flag("json")
        if findings.isEmpty, !json {
            let size = (try? RichPushJSONValue.parseStrictly(data))?.jsonData(sortedKeys: false).count ?? data.count
            printError("richpush lint: \(InputFile.describe(path)): ok, no findings (\(size) of \(linter.sizeLimit) bytes)")
        }
        for finding in findings { try StandardOutput.print(line(finding, fixed: false, json: json)) }
        return findings.contains { $0.severity == .error } ? 1 : 0
    }
}
