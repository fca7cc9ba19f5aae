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
}
