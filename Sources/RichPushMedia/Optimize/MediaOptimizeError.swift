import RichPushCore

/// Why `MediaOptimizer` made no push-ready copy.
public struct MediaOptimizeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        /// The input is not media the optimiser knows (HTML, text, an unknown format).
        public static let notMedia = Code(rawValue: "not_media")
        /// A format that is not converted (video, audio) and that the extension refuses as it is,
        /// or a loader that is off (BMP without ImageMagick).
        public static let unsupportedFormat = Code(rawValue: "unsupported_format")
        /// Over a limit that converting cannot fix: the decoder's pixel bound, a video or sound
        /// over Apple's limit, or no JPEG within the byte budget even at the smallest size.
        public static let tooLarge = Code(rawValue: "too_large")
        /// The file is cut short or broken (`RichPushMediaIntegrity`, or the decoder).
        public static let corruptMedia = Code(rawValue: "corrupt_media")
        /// libvips failed, or no media worker could be started.
        public static let decoder = Code(rawValue: "decoder")
        /// The conversion ran past its time in a media worker (`MediaWorkerPool.Settings.timeout`,
        /// wall clock or CPU), or waited past it for a free worker; the worker was stopped.
        public static let mediaTimeout = Code(rawValue: "media_timeout")
        /// The file could not be read or written.
        public static let storage = Code(rawValue: "storage")
    }

    /// The code (a reason code where the extension has the same one).
    public let code: Code
    /// What was wrong and what to do.
    public let message: String
    /// The `MediaOptimizer.Settings` or `MediaWorkerPool.Settings` property to change when that
    /// is the fix (`allowsImageMagick`, `allowsSVG`, `maximumInputPixels`, `maximumDecodeBytes`,
    /// `maximumBytes`, `timeout`, `memoryBytes`, `workers`): a program maps it to its own name
    /// for the setting.
    public let setting: String?

    /// Makes an error.
    /// - Parameters:
    ///   - code: the code.
    ///   - message: what was wrong.
    ///   - setting: the settings property to change, when that is the fix.
    public init(_ code: Code, _ message: String, setting: String? = nil) {
        self.code = code
        self.message = message
        self.setting = setting
    }

    public var description: String { "\(code): \(message)" }
}
