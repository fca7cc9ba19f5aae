/// The three kinds of notification attachment, each with Apple's size limit.
public enum RichPushMediaKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Images: JPEG, GIF, PNG (Apple: ≤ 10 MB).
    case image
    /// Audio: AIFF, WAV, MP3, MPEG-4 audio (Apple: ≤ 5 MB).
    case audio
    /// Video: MPEG, MPEG-2 video, MPEG-4, AVI (Apple: ≤ 50 MB).
    case video

    /// The largest attachment of this kind, in bytes.
    ///
    /// - Important: Apple, `UNNotificationAttachment` "Supported File Types": images 10 MB,
    ///   audio 5 MB, video 50 MB. Read as 10⁶-byte megabytes (the stricter reading), so a file
    ///   RichPush accepts is never one iOS rejects.
    public var maximumBytes: Int {
        switch self {
        case .image: return 10_000_000
        case .audio: return 5_000_000
        case .video: return 50_000_000
        }
    }

    /// The largest limit of any kind (video, 50 MB), the cap before the type is known.
    public static let largestMaximumBytes = RichPushMediaKind.video.maximumBytes
}
