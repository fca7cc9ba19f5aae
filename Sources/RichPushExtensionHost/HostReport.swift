#if !canImport(UserNotifications)
/// What happened to one request the host ran.
public struct HostReport: Sendable, Equatable {
    /// The request's identifier.
    public var requestIdentifier: String
    /// What was shown.
    public var shown: ShownContent
    /// True when the host showed the request's original content (the handler was not called in time).
    public var shownOriginal: Bool
    /// True when `serviceExtensionTimeWillExpire()` was called while this request was in flight.
    public var expiryCalled: Bool
    /// How many times the content handler was called for this request (iOS allows exactly one);
    /// calls made after `ExtensionHost.run` returned are not counted.
    public var handlerCalls: Int
    /// Rules the extension broke.
    public var faults: [HostFault]
    /// The files of the shown attachments, in the host's store (the extension's copies are gone).
    public var attachmentsMovedTo: [String]
    /// Milliseconds from `didReceive` to the first handler call (or to showing the original).
    public var elapsedMs: Int
    /// The process's peak resident memory when the request finished, in bytes (`nil` if unknown).
    public var peakMemoryBytes: Int?

    /// True when the peak is over the ~24 MB extension limit (`ProcessMemory.extensionLimitBytes`).
    public var overMemoryLimit: Bool { (peakMemoryBytes ?? 0) > ProcessMemory.extensionLimitBytes }
}
#endif
