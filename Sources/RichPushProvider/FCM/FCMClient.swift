import Foundation
import RichPushCore

/// Sends messages with FCM HTTP v1 (`POST /v1/projects/{project}/messages:send`).
public final class FCMClient: Sendable {
    /// Google's FCM endpoint.
    public static let defaultEndpoint = "https://fcm.googleapis.com"

    private let account: FCMServiceAccount
    private let endpoint: String
    private let tokens: FCMAccessTokenProvider
    private let transport: any HTTPTransport

    /// Makes a client.
    ///
    /// - Parameters:
    ///   - account: the service account (project id, key, token URI).
    ///   - endpoint: the FCM base URL (a test server in tests).
    ///   - transport: the HTTP transport.
    ///   - clock: the clock for the access-token cache.
    /// - Throws: `RichPushError` with code `invalid_key`.
    public init(account: FCMServiceAccount, endpoint: String = FCMClient.defaultEndpoint, transport: any HTTPTransport, clock: any ProviderClock = SystemClock()) throws {
        self.account = account
        var base = endpoint
        while base.hasSuffix("/") { base.removeLast() }
        self.endpoint = base
        self.transport = transport
        self.tokens = try FCMAccessTokenProvider(account: account, transport: transport, clock: clock)
    }

    /// The access-token cache (for its fetch count).
    public var accessTokens: FCMAccessTokenProvider { tokens }

    /// Sends one message; on 401 the access token is fetched again once and the send retried.
    ///
    /// - Parameter message: the message.
    /// - Returns: FCM's answer (`isAccepted`, or the error code verbatim).
    /// - Throws: `RichPushError` with code `oauth` or `transport`.
    public func send(_ message: FCMMessage) async throws -> FCMResult {
        let url = endpoint + "/v1/projects/" + account.projectID + "/messages:send"
        var retriedAuth = false
        while true {
            let bearer = try await tokens.accessToken()
            let response = try await transport.send(HTTPRequest(
                method: "POST", url: url,
                headers: [("authorization", "Bearer " + bearer), ("content-type", "application/json; charset=utf-8")],
                body: message.requestBody.jsonData()
            ))
            if response.status == 401, !retriedAuth {
                retriedAuth = true
                await tokens.invalidate()
                continue
            }
            let json = (try? JSONValue.parse(response.body)) ?? .null
            var result = FCMResult(status: response.status, name: json["name"]?.stringValue)
            if let error = json["error"] {
                result.message = error["message"]?.stringValue
                let fcmCode = error["details"]?.arrayValue?.compactMap { $0["errorCode"]?.stringValue }.first
                result.errorCode = fcmCode ?? error["status"]?.stringValue
            }
            return result
        }
    }
}
