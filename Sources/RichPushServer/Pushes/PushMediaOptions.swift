import Foundation
import RichPushCore

/// What a `POST /v1/pushes` request asks of the send-time media check: `"media": "check" |
/// "optimize" | "off"` and `"on_media_error": "refuse" | "send_text"`.
public struct PushMediaOptions: Sendable, Equatable {
    /// What is done with each media URL before the first token is sent.
    public enum Mode: String, Sendable, CaseIterable {
        /// Probe each URL as the extension will fetch it; one it would not attach stops the push.
        case check
        /// Probe, and send a push-optimised copy from the media edge instead of an original that
        /// iOS would refuse or that is heavy (WebP, HEIC, a 12 MB JPEG …); needs the edge.
        case optimize
        /// Send the payload as it is (no fetch).
        case off
    }

    /// The mode the request named; `nil` = the server's default (`optimize` with the media edge,
    /// `check` without).
    public var mode: Mode?
    /// Whether a URL that fails is removed and the push sent as text (`"send_text"`) instead of
    /// refusing the push with `422 media_refused` (`"refuse"`, the default).
    public var sendsText = false

    /// The request's fields the options are read from.
    static let fields = ["media", "on_media_error"]

    /// The default options: the server's mode, refuse on error.
    public init() {}

    /// Reads the options from a request body's members.
    ///
    /// - Parameter root: the request's members.
    /// - Throws: `HTTPResponseError` 400 naming the field.
    init(_ root: [String: RichPushJSONValue]) throws {
        if let value = root["media"] {
            guard let mode = value.stringValue.flatMap(Mode.init(rawValue:)) else {
                throw HTTPResponseError(
                    field: "media",
                    message:
                        "media must be \"check\" (probe each media URL as the extension will), \"optimize\" (send push-optimised copies from the media edge) or \"off\"; leave it out for the server's default"
                )
            }
            self.mode = mode
        }
        if let value = root["on_media_error"] {
            switch value.stringValue {
            case "refuse": sendsText = false
            case "send_text": sendsText = true
            default:
                throw HTTPResponseError(
                    field: "on_media_error",
                    message:
                        "on_media_error must be \"refuse\" (the default: 422 media_refused, nothing sent) or \"send_text\" (send the push without the media the extension would not attach)"
                )
            }
        }
    }
}
