import Foundation
import RichPushMedia

/// How `POST /v1/pushes` checks (and, with the media edge, optimises) each media URL before the
/// first token is sent: the probe's settings (`richpush serve --media-allow-host HOST`,
/// `--allow-http-host HOST`, `--media-ca-file PEM`), the optimiser's budgets (`--allow-svg`) and
/// the media workers it runs in (`--media-workers N`, `--media-timeout SECONDS`,
/// `--media-worker-memory BYTES`).
public struct MediaCheckSettings: Sendable {
    /// The probe: the extension's fetch rules, its 25 s budget, no server-side request forgery
    /// (`MediaAddressPolicy`: loopback, private, link-local and unique-local addresses refused
    /// unless `--media-allow-host` names the host).
    public var probe = MediaProbe.Settings()
    /// The optimiser's budgets: 300 KB (article 004), 2048 px on the long side, 100 MP declared
    /// at most, 400 MB for a decoder that holds the whole image; SVG off.
    public var optimizer = MediaOptimizer.Settings()
    /// The worker processes conversions run in (with the media edge): 2 at once, 1 GiB of
    /// address space each, 20 s per conversion. `workers.command` must name the `richpush`
    /// binary (`/proc/self/exe` by default: right for `richpush serve`; a test running the server
    /// in its own process names the built binary).
    public var workers = MediaWorkerPool.Settings()

    /// Default settings: every non-public address refused, no ATS exception, the system's roots.
    public init() {}
}
