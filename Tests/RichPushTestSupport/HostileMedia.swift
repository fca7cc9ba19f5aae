import Foundation

/// Hostile media made by the tests (never committed as files): what took `richpush serve`
/// down or held it before the media workers (issue 28).
public enum HostileMedia {
    /// An SVG whose `feConvolveMatrix` has `order` × `order` kernel values: Debian 12's librsvg
    /// 2.54.7 panics on an order of 25 or more ("Data storage buffer dimension mismatch", in
    /// nalgebra) and the panic aborts the process that renders it. About 1.5 KB.
    ///
    /// - Parameter order: the matrix order (≥ 25 panics).
    /// - Returns: the document's bytes.
    public static func convolveSVG(order: Int = 25) -> Data {
        let kernel = Array(repeating: "1", count: order * order).joined(separator: " ")
        return Data(
            """
            <svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><filter id="f"><feConvolveMatrix order="\(order)" kernelMatrix="\(kernel)"/></filter><rect width="100" height="100" fill="red" filter="url(#f)"/></svg>
            """.utf8)
    }

    /// A 2048 × 2048 SVG of one rectangle through an `feMorphology` of `radius`: librsvg renders
    /// it tile by tile, each tile filtering the whole canvas, so 174 bytes keep a decoder busy for
    /// about 30 s at radius 5 and several minutes at 10 (a loaded 2-core machine).
    ///
    /// - Parameter radius: the morphology radius (time grows with its square).
    /// - Returns: the document's bytes.
    public static func slowSVG(radius: Int = 10) -> Data {
        Data(
            """
            <svg xmlns="http://www.w3.org/2000/svg" width="2048" height="2048"><filter id="f"><feMorphology radius="\(radius)"/></filter><rect width="2048" height="2048" filter="url(#f)"/></svg>
            """.utf8)
    }

    /// An SVG that embeds `picture` (PNG, JPEG or GIF bytes) as a `data:` URL over the whole
    /// 100 × 100 canvas, with an optional `href` prefix spelled with character references.
    ///
    /// - Parameters:
    ///   - picture: the embedded file.
    ///   - type: its media type, e.g. `image/png`.
    ///   - spelledWithReferences: write `data:` as `&#100;ata:` (the XML parser decodes it).
    /// - Returns: the document's bytes.
    public static func embeddingSVG(_ picture: Data, type: String, spelledWithReferences: Bool = false) -> Data {
        let scheme = spelledWithReferences ? "&#100;ata:" : "data:"
        return Data(
            """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100"><image xlink:href="\(scheme)\(type);base64,\(picture.base64EncodedString())" width="100" height="100"/></svg>
            """.utf8)
    }
}
