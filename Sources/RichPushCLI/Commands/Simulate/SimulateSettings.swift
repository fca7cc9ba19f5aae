import Foundation
import RichPushExtension

/// `richpush simulate --settings` and the key path options: the extension's Info.plist read by
/// the code the extension runs on iOS, and the command line's keys with the Info.plist's semantics.
enum SimulateSettings {
    /// Reads the extension's Info.plist with `RichPushSettings` (the iOS parser) and reports its
    /// problems on standard error, as the extension logs them.
    /// - Parameter path: the Info.plist file.
    /// - Returns: the pipeline configuration the settings describe.
    /// - Throws: `UsageError` when the file cannot be read or is not a property list dictionary.
    static func read(_ path: String) throws -> RichPushConfiguration {
        let settings: RichPushSettings
        do {
            settings = try RichPushSettings.read(contentsOf: URL(fileURLWithPath: path))
        } catch let error as RichPushError {
            throw UsageError(command: "simulate", message: "--settings: \(error.message)")
        } catch {
            throw UsageError(command: "simulate", message: "--settings \(path) cannot be read (\(error.localizedDescription)); give the extension's Info.plist")
        }
        for problem in settings.problems { RichPushCommandLine.printError("warning: \(path): \(problem)") }
        if let group = settings.appGroupIdentifier {
            RichPushCommandLine.printError(
                "note: \(path) names the App Group \(group); here --state and --cache stand for its container (receipt queue, media cache)")
        }
        return settings.pipeline
    }

    /// A key path list as the Info.plist builds it: the given paths first, then the others
    /// they do not repeat; only the given paths with `replace`.
    /// - Parameters:
    ///   - given: the command line's paths, in order.
    ///   - replace: `--replace-…-keys`.
    ///   - option: the option's name, for the error.
    ///   - others: the list in force (defaults or `--settings`).
    /// - Returns: the list.
    /// - Throws: `UsageError` when `replace` is given without paths.
    static func keyPaths(_ given: [RichPushPayloadKeyPath], replace: Bool, option: String, before others: [RichPushPayloadKeyPath]) throws
        -> [RichPushPayloadKeyPath]
    {
        if replace, given.isEmpty {
            throw UsageError(command: "simulate", message: "--replace-\(option)s needs at least one --\(option) PATH (the keys to use instead of the defaults)")
        }
        if replace { return given }
        return given + others.filter { !given.contains($0) }
    }
}
