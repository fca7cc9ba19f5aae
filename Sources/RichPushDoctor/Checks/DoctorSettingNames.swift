/// What the doctor's fixes call the tools and settings they point to: the program's own names
/// (the command line gives its commands and options; `SettingNames.doctor` in `RichPushCLI`), or
/// the library's by default.
public struct DoctorSettingNames: Sendable, Equatable {
    /// Rewriting a payload's fixable lint findings (`RichPushPayloadLinter.fix`; `richpush lint --fix`).
    public var lintFix: String
    /// Making a push-ready copy of a media file (`MediaOptimizer`; `richpush media optimize …`).
    public var optimize: String
    /// The clause that lets the probe fetch `http://` from a host, after "and" (the command line:
    /// "pass --allow-http-host HOST").
    public var allowHTTPHost: String
    /// The clause that lets the probe connect to a test or intranet host (the command line: "pass
    /// --media-allow-host HOST").
    public var allowMediaHost: String

    /// Names of one program's tools and settings.
    ///
    /// - Parameters:
    ///   - lintFix: rewriting the fixable lint findings.
    ///   - optimize: making a push-ready copy of a media file.
    ///   - allowHTTPHost: the clause that lets the probe fetch `http://` from a host.
    ///   - allowMediaHost: the clause that lets the probe connect to a test or intranet host.
    public init(lintFix: String, optimize: String, allowHTTPHost: String, allowMediaHost: String) {
        self.lintFix = lintFix
        self.optimize = optimize
        self.allowHTTPHost = allowHTTPHost
        self.allowMediaHost = allowMediaHost
    }

    /// The library's own names: its types and `MediaProbe.Settings`' properties.
    public static let library = DoctorSettingNames(
        lintFix: "RichPushPayloadLinter.fix", optimize: "MediaOptimizer", allowHTTPHost: "add the host to MediaProbe.Settings.allowedHTTPHosts",
        allowMediaHost: "allow it in MediaProbe.Settings.addressPolicy")
}
