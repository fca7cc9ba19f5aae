import Foundation
import RichPushCore

/// What an SVG makes librsvg decode besides its own canvas: the pictures it embeds as `data:`
/// URLs (`<image href="data:image/png;base64,…">`, `<feImage>`), read before anything is
/// rendered so that their pixels count against the optimiser's bounds.
///
/// The SVG is rendered from memory (no base file), so librsvg loads no other file or URL it
/// names; only `data:` URLs can bring pixels in. Refused before rendering: a document that
/// declares XML entities (an entity could spell a `data:` URL this scan would not see, or
/// expand a billion times), and an embedded picture that is not PNG, JPEG or GIF (another SVG
/// inside, or one of gdk-pixbuf's lesser loaders: ICO, TGA, XPM…).
enum SVGScan {
    /// One embedded picture.
    struct Embedded: Sendable, Equatable {
        /// Its format (PNG, JPEG or GIF).
        var format: RichPushMediaFormat
        /// Its declared width in pixels.
        var width: Int
        /// Its declared height in pixels.
        var height: Int
    }

    /// The formats an SVG may embed.
    static let embeddable: Set<RichPushMediaFormat> = [.png, .jpeg, .gif]

    /// The pictures `svg` embeds.
    ///
    /// - Parameter svg: the SVG document's bytes.
    /// - Returns: each `data:` picture, in document order.
    /// - Throws: `MediaOptimizeError` `unsupported_format` for declared entities or a picture of
    ///   another format, `corrupt_media` for a `data:` URL that does not decode.
    static func embedded(in svg: Data) throws(MediaOptimizeError) -> [Embedded] {
        let bytes = [UInt8](svg)
        if contains(bytes, Array("<!ENTITY".utf8), caseInsensitive: true) {
            throw MediaOptimizeError(
                .unsupportedFormat, "the SVG declares XML entities (<!ENTITY>), which RichPush does not render; write the document without a DTD")
        }
        var found: [Embedded] = []
        for value in hrefValues(bytes) {
            let text = decodeReferences(value).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.lowercased().hasPrefix("data:") else { continue }
            guard let payload = dataURLBytes(text) else {
                throw MediaOptimizeError(.corruptMedia, "the SVG embeds a data: URL that does not decode")
            }
            let format = RichPushMediaFormat.sniff(payload.prefix(RichPushMediaFormat.sniffLength))
            guard let format, embeddable.contains(format) else {
                throw MediaOptimizeError(
                    .unsupportedFormat,
                    "the SVG embeds \(format.map { "a \($0.name) picture" } ?? "a picture of unknown format"); only PNG, JPEG and GIF pictures inside an SVG are rendered"
                )
            }
            guard let info = VipsLibrary.header(payload) else {
                throw MediaOptimizeError(.corruptMedia, "the SVG embeds a \(format.name) picture whose header cannot be read")
            }
            found.append(Embedded(format: format, width: info.width, height: info.height))
        }
        return found
    }

    /// The values of every attribute named `href` (`href`, `xlink:href`, any prefix), raw.
    static func hrefValues(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        let name = Array("href".utf8)
        var values: [ArraySlice<UInt8>] = []
        var i = 0
        while i + name.count <= bytes.count {
            guard bytes[i] == name[0], bytes[i..<(i + name.count)].elementsEqual(name) else {
                i += 1
                continue
            }
            let before = i > 0 ? bytes[i - 1] : 0x20
            var j = i + name.count
            i += 1
            guard before == UInt8(ascii: ":") || isSpace(before) else { continue }
            while j < bytes.count, isSpace(bytes[j]) { j += 1 }
            guard j < bytes.count, bytes[j] == UInt8(ascii: "=") else { continue }
            j += 1
            while j < bytes.count, isSpace(bytes[j]) { j += 1 }
            guard j < bytes.count, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'") else { continue }
            let quote = bytes[j]
            let start = j + 1
            guard let end = bytes[start...].firstIndex(of: quote) else { break }
            values.append(bytes[start..<end])
            i = end + 1
        }
        return values
    }

    /// An attribute value with XML's character references (`&#100;`, `&#x64;`) and predefined
    /// entities (`&amp;` …) replaced, as the XML parser librsvg uses replaces them.
    static func decodeReferences(_ value: ArraySlice<UInt8>) -> String {
        let text = String(decoding: value, as: UTF8.self)
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 12 else {
                out += rest[amp...]
                return out
            }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                var scalar: Unicode.Scalar?
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if entity.hasPrefix("#") {
                    scalar = UInt32(entity.dropFirst(1)).flatMap(Unicode.Scalar.init)
                }
                if let scalar { out.unicodeScalars.append(scalar) } else { out += rest[amp...semi] }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    /// The bytes of a `data:` URL (base64 or percent-encoded), or `nil`.
    static func dataURLBytes(_ url: String) -> Data? {
        guard let comma = url.firstIndex(of: ",") else { return nil }
        let meta = url[url.index(url.startIndex, offsetBy: 5)..<comma].lowercased()
        let body = url[url.index(after: comma)...]
        if meta.hasSuffix(";base64") {
            return Data(base64Encoded: String(body.filter { !$0.isWhitespace }), options: .ignoreUnknownCharacters)
        }
        var out = Data()
        var utf8 = Array(body.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            out.append(value)
            utf8 = utf8.dropFirst(2)
        }
        return out
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    static func contains(_ bytes: [UInt8], _ needle: [UInt8], caseInsensitive: Bool) -> Bool {
        guard !needle.isEmpty, bytes.count >= needle.count else { return false }
        func lower(_ b: UInt8) -> UInt8 { caseInsensitive && (65...90).contains(b) ? b + 32 : b }
        let pattern = needle.map(lower)
        var i = 0
        while i + pattern.count <= bytes.count {
            if lower(bytes[i]) == pattern[0] {
                var k = 1
                while k < pattern.count, lower(bytes[i + k]) == pattern[k] { k += 1 }
                if k == pattern.count { return true }
            }
            i += 1
        }
        return false
    }
}
