import RichPushCore
import RichPushExtension

/// What `MediaOptimizer.optimize` made.
public struct MediaOptimizeResult: Sendable, Equatable {
    /// Kept as it was, or converted to JPEG.
    public var action: MediaOptimizer.Action = .kept
    /// The input's format.
    public var inputFormat: RichPushMediaFormat
    /// The input's size in bytes.
    public var inputBytes: Int
    /// The input's pixel size (images).
    public var inputSize: RichPushMediaIntegrity.PixelSize?
    /// The output's format (JPEG when converted).
    public var outputFormat: RichPushMediaFormat
    /// The output's size in bytes.
    public var outputBytes: Int
    /// The output's pixel size (images).
    public var outputSize: RichPushMediaIntegrity.PixelSize?
    /// The JPEG quality used, when converted.
    public var quality: Int?
    /// Time taken, in ms.
    public var elapsedMs = 0

    /// The JSON object `richpush media optimize --json` prints.
    public var json: RichPushJSONValue {
        func number(_ v: Int?) -> RichPushJSONValue { v.map { .number(RichPushJSONNumber($0)) } ?? .null }
        return .object([
            "action": .string(action.rawValue),
            "input_format": .string(inputFormat.name),
            "input_bytes": number(inputBytes),
            "input_width": number(inputSize?.width),
            "input_height": number(inputSize?.height),
            "output_format": .string(outputFormat.name),
            "output_type": .string(outputFormat.uniformTypeIdentifier),
            "output_bytes": number(outputBytes),
            "output_width": number(outputSize?.width),
            "output_height": number(outputSize?.height),
            "quality": number(quality),
            "elapsed_ms": number(elapsedMs),
        ])
    }

    /// One line, e.g. `converted WebP 41746 bytes 1200×800 → JPEG 35120 bytes 1200×800 (q85, 40 ms)`.
    public var line: String {
        func size(_ s: RichPushMediaIntegrity.PixelSize?) -> String { s.map { " \($0.width)×\($0.height)" } ?? "" }
        let q = quality.map { "q\($0), " } ?? ""
        return
            "\(action.rawValue) \(inputFormat.name) \(inputBytes) bytes\(size(inputSize)) → \(outputFormat.name) \(outputBytes) bytes\(size(outputSize)) (\(q)\(elapsedMs) ms)"
    }
}
