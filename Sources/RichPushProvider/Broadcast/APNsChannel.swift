/// A broadcast channel: the id APNs made for it and its storage policy.
public struct APNsChannel: Sendable, Hashable {
    /// The base64 channel id APNs answered (`apns-channel-id`); Apple: "don't make assumptions
    /// on the channel ID size".
    public var id: String
    /// The storage policy it was created with (or read back).
    public var policy: APNsMessageStoragePolicy
    /// The `apns-request-id` of the request that created or read it.
    public var requestID: String?

    /// Makes a channel value.
    /// - Parameters:
    ///   - id: the channel id.
    ///   - policy: its storage policy.
    ///   - requestID: the request id, if any.
    public init(id: String, policy: APNsMessageStoragePolicy, requestID: String? = nil) {
        self.id = id
        self.policy = policy
        self.requestID = requestID
    }
}
