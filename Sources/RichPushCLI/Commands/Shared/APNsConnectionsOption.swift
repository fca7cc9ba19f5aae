import Foundation
import RichPushProvider

/// `--apns-connections N` of `richpush send` and `richpush serve`: how many HTTP/2 connections to
/// APNs (issue 21 item 4), each following its server's `SETTINGS_MAX_CONCURRENT_STREAMS`, one
/// provider token (JWT) for all of them.
enum APNsConnectionsOption {
    /// The most connections: beyond that, connections × streams is far past what one process sends.
    static let maximum = 64

    /// The option's `--help` line.
    static let help = "HTTP/2 connections to APNs (1…64, default 1), requests spread over them, one provider token for all."

    /// `richpush send`'s connections (default 1).
    ///
    /// - Parameters:
    ///   - args: the parsed arguments.
    ///   - provider: the provider of the send.
    /// - Returns: 1…64.
    /// - Throws: `UsageError` for a value out of range, or the option with FCM.
    static func connections(_ args: ParsedArguments, provider: PushProvider) throws -> Int {
        guard let value = try args.integer("apns-connections", in: 1...maximum) else { return 1 }
        guard provider == .apns else {
            throw UsageError(command: "send", message: "--apns-connections applies to APNs; FCM sends go over one connection")
        }
        return value
    }

    /// `richpush serve`'s connections for `POST /v1/pushes` (default 1).
    ///
    /// - Parameters:
    ///   - args: the parsed arguments.
    ///   - apnsConfigured: whether the APNs settings were given.
    /// - Returns: 1…64.
    /// - Throws: `UsageError` for a value out of range, or the option without APNs settings.
    static func serveConnections(_ args: ParsedArguments, apnsConfigured: Bool) throws -> Int {
        guard let value = try args.integer("apns-connections", in: 1...maximum) else { return 1 }
        guard apnsConfigured else {
            throw UsageError(
                command: "serve",
                message:
                    "--apns-connections applies to APNs: give --apns-key, --apns-key-id, --apns-team-id and --apns-topic too (FCM sends go over one connection)"
            )
        }
        return value
    }
}
