import Foundation
import RichPushMedia

/// The probe's command-line options, shared by `media probe`, `media optimize URL` and `lint --probe`.
enum MediaProbeOptions {
    static let options: [ParsedArguments.Option] = [
        .value(
            "media-allow-host", "HOST", repeatable: true,
            help: "Fetch from HOST even when it is (or resolves to) a loopback,\nprivate, link-local or unique-local address (tests, intranets)."),
        .value("allow-http-host", "HOST", repeatable: true, help: "Allow cleartext http:// to HOST (an App Transport\nSecurity exception), as in simulate."),
        .value("budget", "SECONDS", help: "Time for the whole fetch (default 25, the extension's deadline)."),
        .value(
            "media-ca-file", "PEM",
            help: "Trust these roots for https media instead of the system's\n(an intranet's private CA, one the devices trust; tests)."),
    ]

    /// The `--allow-http-host` hosts, lower-cased (the probe's, and the lint's allowed cleartext hosts).
    /// - Parameter args: the parsed options.
    /// - Returns: the hosts.
    static func allowedHTTPHosts(_ args: ParsedArguments) -> Set<String> {
        Set(args.values("allow-http-host").map { $0.lowercased() })
    }

    /// Probe settings from the parsed options.
    /// - Throws: `UsageError` for a budget out of range.
    static func settings(_ args: ParsedArguments, command: String) throws -> MediaProbe.Settings {
        var settings = MediaProbe.Settings()
        settings.allowedHTTPHosts = allowedHTTPHosts(args)
        settings.addressPolicy = MediaAddressPolicy(allowedHosts: Set(args.values("media-allow-host")), allowedHostsSetting: SettingNames.mediaAllowHost)
        if let ca = args.value("media-ca-file") {
            guard FileManager.default.isReadableFile(atPath: ca) else {
                throw UsageError(command: command, message: "'--media-ca-file \(ca)': no readable file there (a PEM of CA certificates)")
            }
            settings.caFile = ca
        }
        if let budget = try args.seconds("budget", in: 0.1...600) {
            settings.budget = .milliseconds(Int(budget * 1000))
        }
        return settings
    }
}
