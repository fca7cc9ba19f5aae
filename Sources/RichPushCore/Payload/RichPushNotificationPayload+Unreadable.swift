extension RichPushNotificationPayload {
    /// The one `userInfo` key of a notification request made from payload bytes that are not a
    /// JSON object; its value (a string) says why.
    ///
    /// A host that builds requests from raw bytes (the Linux extension host behind
    /// `richpush simulate`) cannot put such bytes in `userInfo`, a dictionary; it puts
    /// `{unreadablePayloadKey: "<the parse error>"}` there, and the extension pipeline delivers it
    /// as outcome `original`, reason `invalid_payload`, as for unreadable bytes (not as `{}`).
    public static let unreadablePayloadKey = "richpush.unreadable-payload"
}
