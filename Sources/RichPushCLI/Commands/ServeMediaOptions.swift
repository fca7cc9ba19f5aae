import Foundation
import RichPushCore
import RichPushMedia
import RichPushServer

/// `richpush serve`'s media-edge options: `--media-store-bytes N` turns the edge on (optimised
/// media stored in the store, served at `/m/<sha256>.<ext>` from `--public-url`, which must be
/// https unless `--media-edge-allow-http`); `--media-allow-host`, `--allow-http-host` and
/// `--media-ca-file` are the send-time media check's, as in `richpush media probe`.
enum ServeMediaOptions {
    /// The options, for `ServeCommand.spec`.
    static let options: [ParsedArguments.Option] =
        [
            .value(
                "media-store-bytes", "BYTES",
                help:
                    "Turn the media edge on: keep optimised push media (at most BYTES,\noldest unreferenced first) in the store and serve it at\nGET /m/<sha256>.<ext>; needs an https --public-url."
            ),
            .flag("media-edge-allow-http", help: "Let the media edge run on an http --public-url (tests only: iOS refuses http media)."),
            .value(
                "media-public-url", "URL",
                help: "Where devices fetch the edge's files, if not --public-url (a CDN or\nanother host name in front of this server; https)."),
            .value(
                "media-cache-bytes", "BYTES",
                help: "The edge's files each instance keeps in memory, least recently\nused out (default 67108864, 64 MB; 0 keeps none)."),
        ] + MediaProbeOptions.options.filter { $0.name != "budget" } + MediaWorkerOptions.options(serve: true)

    /// The send-time media check's settings (`POST /v1/pushes`): the probe's, and the media
    /// workers' conversions run in.
    ///
    /// - Parameter args: the parsed arguments.
    /// - Returns: the settings.
    /// - Throws: `UsageError` for an unreadable `--media-ca-file` or a worker bound out of range.
    static func check(_ args: ParsedArguments) throws -> MediaCheckSettings {
        var check = MediaCheckSettings()
        check.probe = try MediaProbeOptions.settings(args, command: "serve")
        try MediaWorkerOptions.apply(args, to: &check.workers, optimizer: &check.optimizer)
        return check
    }

    /// The banner's line for the edge.
    ///
    /// - Parameters:
    ///   - edge: the settings.
    ///   - workers: the media workers' bounds.
    ///   - svg: whether SVG is rasterised.
    /// - Returns: the lines, newlines included.
    static func bannerLine(_ edge: MediaEdgeSettings, workers: MediaWorkerPool.Settings, svg: Bool) -> String {
        "  media:     GET \(edge.publicURL)/m/<sha256>.<ext> (the media edge; at most \(edge.storeBytes) bytes of files in the store)\n"
            + "  media workers: \(workers.workers) at once, \(workers.memoryBytes) bytes of address space each, \(workers.timeout.components.seconds) s per conversion, SVG \(svg ? "on" : "off")\n"
    }

    /// The edge settings from the options, or `nil` when `--media-store-bytes` is absent.
    ///
    /// - Parameters:
    ///   - args: the parsed arguments.
    ///   - publicURL: the checked `--public-url` (the edge's, unless `--media-public-url` is given).
    /// - Returns: the settings, or `nil`.
    /// - Throws: `UsageError` (exit 64) naming the fix.
    static func settings(_ args: ParsedArguments, publicURL: String?) throws -> MediaEdgeSettings? {
        guard let bytes = try args.integer("media-store-bytes", in: 0...Int(Int64.max / 2)) else {
            for option in ["media-edge-allow-http", "media-public-url", "media-cache-bytes"] where args.flag(option) || args.value(option) != nil {
                throw UsageError(command: "serve", message: "--\(option) goes with --media-store-bytes BYTES (the media edge)")
            }
            return nil
        }
        let edgeURL = args.value("media-public-url") ?? publicURL
        if let given = args.value("media-public-url"), !ServerConfiguration.isPublicURL(given) {
            throw UsageError(command: "serve", message: "'--media-public-url \(given)' is not an http(s) URL with a host, e.g. https://media.example.com")
        }
        do {
            var edge = try MediaEdgeSettings(
                publicURL: edgeURL, storeBytes: bytes, allowHTTP: args.flag("media-edge-allow-http"), names: SettingNames.mediaEdge)
            if let cache = try args.integer("media-cache-bytes", in: 0...Int(Int64.max / 2)) { edge.cacheBytes = cache }
            return edge
        } catch let error as RichPushError {
            throw UsageError(command: "serve", message: error.message)
        }
    }
}
