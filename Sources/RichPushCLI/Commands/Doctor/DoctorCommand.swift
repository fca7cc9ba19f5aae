import Foundation
import RichPushCore
import RichPushDoctor
import RichPushMedia

/// `richpush doctor PATH [--json] [--payload FILE [--probe]]`: finds why a rich notification will not show.
enum DoctorCommand {
    static let spec = CommandSpec(
        name: "doctor",
        summary: "Check an Xcode project (and a payload) for why rich notifications will not show",
        usage: "richpush doctor PATH [--json] [--payload FILE [--probe [--media-allow-host HOST] [--allow-http-host HOST]]]",
        discussion: """
            PATH is an .xcodeproj, an .xcworkspace, or a folder holding one (the first found;
            the others are named). Reads project.pbxproj, the targets' Info.plist and
            .entitlements files and their Release build settings (with .xcconfig files,
            $(…) expanded; what cannot be resolved is said so), and checks that each app has a
            notification service extension that is embedded, not "Copy only when installing",
            at the right extension point with an existing principal class, not above the app's
            deployment target, with the app's bundle id prefix and App Group, and that the app
            has aps-environment. A content extension and its categories are listed.

            --payload FILE adds the payload lint (mutable-content, alert, media URLs) and App
            Transport Security against the payload's http:// media. --probe also fetches each
            media URL the service extension would use, as it would (richpush media probe):
            media_refused (error, the probe's reason), media_slow (warning: first byte from
            5 s or total from 10 s, of the extension's 30 s), media_ok (info).

            Prints one line per finding (SEVERITY CODE TARGET: message Fix: …), errors first,
            then a summary line. The codes are stable and listed in docs/doctor.md.

            Exit status: 0 when no error was found, 1 when one was, 64 on a usage error.
            """,
        options: [
            .flag("json", help: "Print {project, targets, findings} as one JSON object."),
            .value("payload", "FILE", help: "Also lint this payload (JSON; - for stdin) against the project."),
            .flag("probe", help: "With --payload: fetch each media URL as the extension would (media_refused, media_slow, media_ok)."),
        ] + MediaProbeOptions.options,
        run: run
    )

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw UsageError(command: "doctor", message: "give exactly one path: an .xcodeproj, an .xcworkspace or a folder holding one")
        }
        if args.flag("probe"), args.value("payload") == nil {
            throw UsageError(command: "doctor", message: "'--probe' fetches the payload's media: give it with '--payload FILE'")
        }
        let settings = try MediaProbeOptions.settings(args, command: "doctor")
        var payload: Data?
        if let file = args.value("payload") {
            payload = try await InputFile.read(file, what: "the payload", option: "--payload")
        }
        let report: DoctorReport
        if args.flag("probe"), let payload {
            report = await Doctor.run(path: path, payload: payload, probe: settings, names: SettingNames.doctor)
        } else {
            report = Doctor.run(path: path, payload: payload, names: SettingNames.doctor)
        }
        if args.flag("json") {
            var out = report.json.jsonData(sortedKeys: true)
            out.append(0x0A)
            try StandardOutput.write(out)
        } else {
            for line in report.lines { try StandardOutput.print(line) }
        }
        return report.hasErrors ? 1 : 0
    }
}
