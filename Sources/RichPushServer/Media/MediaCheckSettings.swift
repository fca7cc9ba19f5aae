import Foundation
import RichPushMedia

/// How `POST /v1/pushes` checks (and, with the media edge, optimises) each media URL before the
/// first token is sent: the probe's settings (`richpush serve --media-allow-host HOST`,
/// `--allow-http-host HOST`, `--media-ca-file PEM`) and the optimiser's budgets.
public struct MediaCheckSettings: Sendable {
    /// The probe: the extension's fetch rules, its 25 s budget, no server-side request forgery
    /// (`MediaAddressPolicy`: loopback, private, link-local and unique-local addresses refused
    /// unless `--media-allow-host` names the host).
    public var probe = MediaProbe.Settings()
    /// The optimiser's budgets: 300 KB (article 004), 2048 px on the long side, 100 MP declared at most.
    public var optimizer = MediaOptimizer.Settings()

    /// Default settings: every non-public address refused, no ATS exception, the system's roots.
    public init() {}
}
