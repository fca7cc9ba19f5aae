import RichPushCore

extension RichPushError.Code {
    /// The database could not be opened, read or written.
    public static let store = RichPushError.Code(rawValue: "store")
    /// The database cannot be reached now (PostgreSQL down or unreachable); retry later.
    public static let storeUnavailable = RichPushError.Code(rawValue: "store_unavailable")
    /// The HTTP server could not start (address in use, bad host).
    public static let listen = RichPushError.Code(rawValue: "listen")
    /// The statistics server answered with an error (used by `richpush stats`).
    public static let server = RichPushError.Code(rawValue: "server")
    /// The store does not keep what was asked of it (campaigns, idempotency keys, the webhook
    /// outbox, media files: SQLite and PostgreSQL keep them all).
    public static let storeUnsupported = RichPushError.Code(rawValue: "store_unsupported")
}

extension RichPushError {
    /// What a store answers for a feature it does not keep (the protocols' defaults).
    ///
    /// - Parameter feature: what it does not keep, e.g. `campaigns`.
    /// - Returns: the error, code `store_unsupported`.
    static func storeUnsupported(_ feature: String) -> RichPushError {
        RichPushError(code: .storeUnsupported, message: "this store keeps no \(feature); use the SQLite or PostgreSQL store")
    }
}
