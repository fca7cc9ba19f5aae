import Foundation
import RichPushCore
import RichPushExtension

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The media worker's protocol: one request, then one reply, each a frame of a 4-byte
/// big-endian length and that many bytes of JSON (at most `maximumFrameBytes`), over pipes:
/// requests on the worker's standard input, replies on its standard output. Files are passed by
/// path (the server's scratch folder), never through the pipe.
enum MediaWorkerMessage {
    /// The largest frame either side accepts: 64 KB (a request is two paths and a few numbers).
    static let maximumFrameBytes = 64 * 1024

    /// One conversion.
    struct Request: Codable, Sendable, Equatable {
        /// The input file.
        var input: String
        /// Where the copy goes.
        var output: String
        /// `MediaOptimizer.Settings.maximumBytes`.
        var maximumBytes: Int
        /// `MediaOptimizer.Settings.maximumSide`.
        var maximumSide: Int
        /// `MediaOptimizer.Settings.maximumInputPixels`.
        var maximumInputPixels: Int
        /// `MediaOptimizer.Settings.maximumDecodeBytes`.
        var maximumDecodeBytes: Int
        /// CPU seconds this conversion may use (`RLIMIT_CPU`, raised per conversion).
        var cpuSeconds: Int

        /// The optimiser's settings (the loader policy is the worker's, fixed at its start).
        func settings(allowsImageMagick: Bool, allowsSVG: Bool) -> MediaOptimizer.Settings {
            var settings = MediaOptimizer.Settings()
            settings.maximumBytes = maximumBytes
            settings.maximumSide = maximumSide
            settings.maximumInputPixels = maximumInputPixels
            settings.maximumDecodeBytes = maximumDecodeBytes
            settings.allowsImageMagick = allowsImageMagick
            settings.allowsSVG = allowsSVG
            return settings
        }
    }

    /// What a conversion made, or why not.
    struct Reply: Codable, Sendable, Equatable {
        /// `MediaOptimizeResult`, when a copy was made.
        var result: Result?
        /// `MediaOptimizeError`, when none was.
        var error: Failure?
        /// The worker's peak resident memory so far, in bytes (`getrusage`).
        var peakRSSBytes: Int

        /// `MediaOptimizeResult` as sent.
        struct Result: Codable, Sendable, Equatable {
            var action: String
            var inputType: String
            var inputBytes: Int
            var inputWidth: Int?
            var inputHeight: Int?
            var outputType: String
            var outputBytes: Int
            var outputWidth: Int?
            var outputHeight: Int?
            var quality: Int?
            var elapsedMs: Int
        }

        /// `MediaOptimizeError` as sent.
        struct Failure: Codable, Sendable, Equatable {
            var code: String
            var message: String
            var setting: String?
        }

        init(_ outcome: Swift.Result<MediaOptimizeResult, MediaOptimizeError>, peakRSSBytes: Int) {
            self.peakRSSBytes = peakRSSBytes
            switch outcome {
            case .success(let r):
                result = Result(
                    action: r.action.rawValue, inputType: r.inputFormat.uniformTypeIdentifier, inputBytes: r.inputBytes, inputWidth: r.inputSize?.width,
                    inputHeight: r.inputSize?.height, outputType: r.outputFormat.uniformTypeIdentifier, outputBytes: r.outputBytes,
                    outputWidth: r.outputSize?.width, outputHeight: r.outputSize?.height, quality: r.quality, elapsedMs: r.elapsedMs)
            case .failure(let e):
                error = Failure(code: e.code.rawValue, message: e.message, setting: e.setting)
            }
        }

        /// The outcome, or `nil` when the reply is not one a worker makes.
        var outcome: Swift.Result<MediaOptimizeResult, MediaOptimizeError>? {
            if let error {
                return .failure(MediaOptimizeError(MediaOptimizeError.Code(rawValue: error.code), error.message, setting: error.setting))
            }
            guard let r = result, let action = MediaOptimizer.Action(rawValue: r.action), let input = Self.format(r.inputType),
                let output = Self.format(r.outputType)
            else { return nil }
            func size(_ w: Int?, _ h: Int?) -> RichPushMediaIntegrity.PixelSize? {
                guard let w, let h else { return nil }
                return RichPushMediaIntegrity.PixelSize(width: w, height: h)
            }
            var made = MediaOptimizeResult(inputFormat: input, inputBytes: r.inputBytes, outputFormat: output, outputBytes: r.outputBytes)
            made.action = action
            made.inputSize = size(r.inputWidth, r.inputHeight)
            made.outputSize = size(r.outputWidth, r.outputHeight)
            made.quality = r.quality
            made.elapsedMs = r.elapsedMs
            return .success(made)
        }

        static func format(_ type: String) -> RichPushMediaFormat? {
            RichPushMediaFormat.known.first { $0.uniformTypeIdentifier == type }
        }
    }

    /// `payload` as a frame.
    static func frame(_ payload: Data) -> Data {
        var length = UInt32(payload.count).bigEndian
        var out = Data(bytes: &length, count: 4)
        out.append(payload)
        return out
    }

    /// The first whole frame at the start of `buffer`, removed from it; `nil` while incomplete.
    ///
    /// - Throws: `MediaOptimizeError` `decoder` for a frame over `maximumFrameBytes`.
    static func takeFrame(from buffer: inout Data) throws(MediaOptimizeError) -> Data? {
        guard buffer.count >= 4 else { return nil }
        let start = buffer.startIndex
        let length = buffer[start..<(start + 4)].reduce(0) { $0 << 8 | Int($1) }
        guard length <= maximumFrameBytes else {
            throw MediaOptimizeError(.decoder, "the media worker sent a frame of \(length) bytes, over \(maximumFrameBytes); it was stopped")
        }
        guard buffer.count >= 4 + length else { return nil }
        let payload = Data(buffer[(start + 4)..<(start + 4 + length)])
        buffer = Data(buffer[(start + 4 + length)...])
        return payload
    }

    /// Writes all of `data` to `descriptor`.
    ///
    /// - Returns: `false` when the other end is gone.
    static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { raw in
            guard var base = raw.baseAddress else { return true }
            var left = raw.count
            while left > 0 {
                let n = write(descriptor, base, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                left -= n
                base += n
            }
            return true
        }
    }

    /// Reads exactly `count` bytes (blocking), or `nil` at the end of the stream.
    static func readExactly(_ count: Int, from descriptor: Int32) -> Data? {
        var out = Data(count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { raw in read(descriptor, raw.baseAddress.map { $0 + got }, count - got) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            got += n
        }
        return out
    }
}
