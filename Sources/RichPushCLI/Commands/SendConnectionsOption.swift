import Foundation
import RichPushProvider

/// `richpush send --apns-connections N`: how many HTTP/2 connections to APNs (issue 21 item 4).
enum SendConnectionsOption {
    /// The most connections: beyond that, connections × streams is far past what one process sends.
    static let maximum = 64

    /// The connections asked for (default 1).
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
}
