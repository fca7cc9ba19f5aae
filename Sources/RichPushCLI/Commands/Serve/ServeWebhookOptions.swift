import Foundation
import RichPushServer

/// `richpush serve --webhook-url [TYPES=]URL --webhook-secret SECRET …`: signed webhook events
/// (see docs/webhooks.md). Environment: `RICHPUSH_WEBHOOK_URL` (one or more `[TYPES=]URL`
/// separated by spaces) when no `--webhook-url` is given, `RICHPUSH_WEBHOOK_SECRET` when no
/// `--webhook-secret` is (a secret on the command line shows in `ps`).
enum ServeWebhookOptions {
    /// The options, for `ServeCommand.spec`.
    static let options: [ParsedArguments.Option] = [
        .value(
            "webhook-url", "[TYPES=]URL", repeatable: true,
            help:
                "POST signed events to URL (repeatable). TYPES: comma-separated event\ntypes it gets (token.inactive, token.bad, push.sent, media.refused,\ncampaign.finished); default all. Env RICHPUSH_WEBHOOK_URL."
        ),
        .value(
            "webhook-secret", "SECRET", repeatable: true,
            help:
                "The key events are signed with (HMAC-SHA256, at least 16 bytes, e.g.\nopenssl rand -hex 32): one for every URL, or one per --webhook-url\nin order. Env RICHPUSH_WEBHOOK_SECRET."
        ),
        .value("webhook-timeout", "SECONDS", help: "One delivery's whole time (default 10; 1…60)."),
        .value("webhook-retry-min", "SECONDS", help: "Wait before the first retry, doubled each time (default 5; 0.1…3600)."),
        .value("webhook-retry-max", "SECONDS", help: "Longest wait between retries (default 300; up to 3600)."),
        .value(
            "webhook-give-up-hours", "H",
            help: "Give a delivery up H hours after its event (default 24; fractions\nallowed, up to 720)."),
    ]

    /// The settings from the options, or `nil` when no URL is given.
    ///
    /// - Parameters:
    ///   - args: the parsed arguments.
    ///   - environment: the process's environment.
    /// - Returns: the settings, or `nil`.
    /// - Throws: `UsageError` (exit 64) naming the fix.
    static func settings(_ args: ParsedArguments, environment: [String: String]) throws -> WebhookSettings? {
        var specs = args.values("webhook-url")
        if specs.isEmpty, let env = environment["RICHPUSH_WEBHOOK_URL"] {
            specs = env.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        }
        let tuning = ["webhook-secret", "webhook-timeout", "webhook-retry-min", "webhook-retry-max", "webhook-give-up-hours"]
        guard !specs.isEmpty else {
            if let given = tuning.first(where: { !args.values($0).isEmpty }) {
                throw UsageError(command: "serve", message: "--\(given) goes with --webhook-url URL (or RICHPUSH_WEBHOOK_URL)")
            }
            return nil
        }
        var secrets = args.values("webhook-secret")
        if secrets.isEmpty, let env = environment["RICHPUSH_WEBHOOK_SECRET"], !env.isEmpty { secrets = [env] }
        guard secrets.count == 1 || secrets.count == specs.count else {
            throw UsageError(
                command: "serve",
                message: secrets.isEmpty
                    ? "webhooks are signed: give --webhook-secret SECRET (or RICHPUSH_WEBHOOK_SECRET), e.g. $(openssl rand -hex 32)"
                    : "\(specs.count) webhook URLs and \(secrets.count) secrets: give one --webhook-secret for all, or one per --webhook-url in order"
            )
        }
        for secret in secrets where secret.utf8.count < 16 {
            throw UsageError(command: "serve", message: "a webhook secret is \(secret.utf8.count) bytes; give at least 16 (e.g. openssl rand -hex 32)")
        }
        var endpoints: [WebhookEndpoint] = []
        for (index, spec) in specs.enumerated() {
            let (types, url) = try split(spec)
            if let problem = WebhookEndpoint.problem(with: url) {
                throw UsageError(command: "serve", message: "'--webhook-url \(spec)': the URL \(problem)")
            }
            let endpoint = WebhookEndpoint(url: url, secret: Data(secrets[secrets.count == 1 ? 0 : index].utf8), types: types)
            guard !endpoints.contains(where: { $0.key == endpoint.key }) else {
                throw UsageError(command: "serve", message: "'--webhook-url \(url)' is given twice; list its event types once: TYPE,TYPE=URL")
            }
            endpoints.append(endpoint)
        }
        var settings = WebhookSettings(endpoints: endpoints)
        if let s = try args.seconds("webhook-timeout", in: 1...60) { settings.timeoutSeconds = s }
        if let s = try args.seconds("webhook-retry-min", in: 0.1...3600) { settings.retryBaseSeconds = s }
        if let s = try args.seconds("webhook-retry-max", in: 0.1...3600) { settings.retryMaxSeconds = s }
        guard settings.retryMaxSeconds >= settings.retryBaseSeconds else {
            throw UsageError(
                command: "serve",
                message: "--webhook-retry-max (\(settings.retryMaxSeconds) s) must be at least --webhook-retry-min (\(settings.retryBaseSeconds) s)")
        }
        if let raw = args.value("webhook-give-up-hours") {
            guard let hours = Double(raw), hours.isFinite, hours > 0, hours <= 720 else {
                throw UsageError(command: "serve", message: "'--webhook-give-up-hours \(raw)' must be a number of hours above 0 and at most 720 (30 days)")
            }
            settings.giveUpSeconds = hours * 3600
        }
        return settings
    }

    /// `token.inactive,token.bad=https://…` → the types and the URL; a plain URL → `nil` (all).
    private static func split(_ spec: String) throws -> (Set<WebhookEventType>?, String) {
        guard let equals = spec.firstIndex(of: "="), !spec[..<equals].contains(":"), !spec[..<equals].contains("/") else { return (nil, spec) }
        var types = Set<WebhookEventType>()
        for name in spec[..<equals].split(separator: ",") {
            let type = WebhookEventType(rawValue: name.trimmingCharacters(in: .whitespaces))
            guard WebhookEventType.all.contains(type) else {
                throw UsageError(
                    command: "serve",
                    message:
                        "'--webhook-url \(spec)': unknown event type '\(type)'; the types are \(WebhookEventType.all.map(\.rawValue).joined(separator: ", "))"
                )
            }
            types.insert(type)
        }
        guard !types.isEmpty else { throw UsageError(command: "serve", message: "'--webhook-url \(spec)': name at least one event type before '='") }
        return (types, String(spec[spec.index(after: equals)...]))
    }

    /// The banner's lines for the endpoints.
    ///
    /// - Parameter settings: the settings.
    /// - Returns: one line per endpoint, newlines included.
    static func bannerLines(_ settings: WebhookSettings) -> String {
        settings.endpoints.map { e in
            let types = e.types.map { $0.sorted().map(\.rawValue).joined(separator: ",") } ?? "all events"
            return
                "  webhooks:  POST \(e.displayURL) (\(types); signed RichPush-Signature; retried for \(settings.giveUpText); /metrics endpoint=\"\(e.key)\")\n"
        }.joined()
    }
}
