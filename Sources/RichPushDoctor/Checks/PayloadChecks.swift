import Foundation
import RichPushCore

/// The payload part of `richpush doctor --payload FILE`: the lint findings that stop the
/// extension from running or the media from showing, and App Transport Security against the
/// payload's `http://` media in each service extension.
public enum PayloadChecks {
    /// Lints the payload with the media key paths of the project's service extension
    /// (`RichPush.MediaKeyPaths` before the defaults, unless `MediaKeyPathsReplace`).
    ///
    /// - Parameters:
    ///   - data: the payload bytes.
    ///   - analysis: the analysed project, or `nil` for the payload alone.
    ///   - names: what the fixes call the tools (the linter's fix).
    /// - Returns: the findings, target `payload` (lint) or the extension (ATS).
    public static func check(_ data: Data, analysis: ProjectAnalysis?, names: DoctorSettingNames = .library) -> [DoctorFinding] {
        let services = analysis?.targets.filter { $0.kind == .notificationService } ?? []
        let keyPaths = mediaKeyPaths(services.first)
        var linter = RichPushPayloadLinter(mediaKeyPaths: keyPaths)
        linter.allowedHTTPHosts = cleartextHosts(services)
        var findings = linter.lint(data).map { finding in
            DoctorFinding(
                DoctorCode(rawValue: finding.code.rawValue), severity: finding.severity == .error ? .error : .warning, target: "payload",
                (finding.keyPath.map { "\($0): " } ?? "") + finding.message,
                fix: finding.fixable ? "\(names.lintFix) rewrites it" : "correct the payload as said")
        }
        guard let payload = try? RichPushJSONValue.parseStrictly(data) else { return findings }
        var hosts: [(path: String, host: String)] = []
        for path in keyPaths + keyPaths.map({ RichPushPayloadKeyPath("data." + $0.description) }) {
            guard let text = path.string(in: payload), let url = URL(string: text), url.scheme?.lowercased() == "http", let host = url.host else { continue }
            if !hosts.contains(where: { $0.host == host }) { hosts.append((path.description, host.lowercased())) }
        }
        for service in services {
            for (path, host) in hosts where !atsAllows(host, in: service.infoPlist) {
                findings.append(
                    DoctorFinding(
                        .atsBlocksMedia, target: service.target.name,
                        "the payload's media at \(path) is http://\(host)/…, and App Transport Security in this extension allows no cleartext load from \(host), so the download fails and the push shows without it",
                        fix:
                            "serve the media over https (best), or add NSAppTransportSecurity → NSExceptionDomains → \(host) → NSExceptionAllowsInsecureHTTPLoads = YES to \(service.infoPlistPath ?? "its Info.plist")"
                    ))
            }
        }
        return findings
    }

    /// The hosts every service extension loads over cleartext http: in its `RichPush` →
    /// `AllowedHTTPHosts` and allowed by its App Transport Security; none without a service.
    static func cleartextHosts(_ services: [TargetFacts]) -> Set<String> {
        var common: Set<String>?
        for service in services {
            let listed = service.infoPlist["RichPush"]?["AllowedHTTPHosts"]?.strings ?? []
            let allowed = Set(listed.map { $0.lowercased() }.filter { atsAllows($0, in: service.infoPlist) })
            common = common.map { $0.intersection(allowed) } ?? allowed
        }
        return common ?? []
    }

    /// The key paths the extension reads a message's sender from.
    static func senderKeyPaths(_ service: TargetFacts?) -> [RichPushPayloadKeyPath] {
        let settings = service?.infoPlist["RichPush"]
        let custom = settings?["SenderKeyPaths"]?.strings.map { RichPushPayloadKeyPath($0) } ?? []
        if settings?["SenderKeyPathsReplace"]?.truthValue == true, !custom.isEmpty { return custom }
        return custom + RichPushPayloadKeyPath.defaultSenderKeyPaths.filter { !custom.contains($0) }
    }

    /// The key paths the extension reads media from.
    static func mediaKeyPaths(_ service: TargetFacts?) -> [RichPushPayloadKeyPath] {
        let settings = service?.infoPlist["RichPush"]
        let custom = settings?["MediaKeyPaths"]?.strings.map { RichPushPayloadKeyPath($0) } ?? []
        if settings?["MediaKeyPathsReplace"]?.truthValue == true, !custom.isEmpty { return custom }
        return custom + RichPushPayloadKeyPath.defaultMediaKeyPaths.filter { !custom.contains($0) }
    }

    /// Whether ATS lets the extension load `http://host`: `NSAllowsArbitraryLoads`, or an
    /// exception domain (itself, or a parent with `NSIncludesSubdomains`) allowing insecure loads.
    static func atsAllows(_ host: String, in infoPlist: [String: PlistValue]) -> Bool {
        guard let ats = infoPlist["NSAppTransportSecurity"] else { return false }
        if ats["NSAllowsArbitraryLoads"]?.truthValue == true { return true }
        for (domain, exception) in ats["NSExceptionDomains"]?.dictionary ?? [:] {
            let domain = domain.lowercased()
            let allows =
                exception["NSExceptionAllowsInsecureHTTPLoads"]?.truthValue == true
                || exception["NSTemporaryExceptionAllowsInsecureHTTPLoads"]?.truthValue == true
            guard allows else { continue }
            if host == domain { return true }
            if exception["NSIncludesSubdomains"]?.truthValue == true && host.hasSuffix("." + domain) { return true }
        }
        return false
    }
}
