import Foundation
@_spi(RichPushInternal) import RichPushExtension
import Testing

@Suite("Media URL normalisation")
struct MediaURLTests {
    @Test("spaces and Japanese characters are percent-encoded as UTF-8")
    func encodesSpacesAndJapanese() throws {
        let url = try MediaURL.normalize("https://img.example.com/夏の 写真/photo 1.jpg")
        #expect(url.absoluteString == "https://img.example.com/%E5%A4%8F%E3%81%AE%20%E5%86%99%E7%9C%9F/photo%201.jpg")
    }

    @Test("existing %XX escapes are never encoded twice")
    func keepsExistingEscapes() throws {
        let url = try MediaURL.normalize("https://img.example.com/a%20b/%E5%A4%8F 夏.jpg?sig=a%2Fb")
        #expect(url.absoluteString == "https://img.example.com/a%20b/%E5%A4%8F%20%E5%A4%8F.jpg?sig=a%2Fb")
    }

    @Test("a lone percent sign becomes %25")
    func encodesLonePercent() throws {
        let url = try MediaURL.normalize("https://img.example.com/100%/x%zz.png")
        #expect(url.absoluteString == "https://img.example.com/100%25/x%25zz.png")
    }

    @Test("query strings survive unchanged")
    func keepsQuery() throws {
        let url = try MediaURL.normalize("  https://cdn.example.com/logo.png?w=720&sig=abc123  ")
        #expect(url.absoluteString == "https://cdn.example.com/logo.png?w=720&sig=abc123")
    }

    @Test(
        "URLs without an http(s) scheme or a host are bad_url",
        arguments: [
            "ftp://example.com/a.jpg", "file:///etc/passwd", "example.com/a.jpg", "https://", "http:///a.jpg", "javascript:alert(1)", "://x",
        ])
    func rejects(_ raw: String) {
        #expect(throws: FetchFailure.self) { try MediaURL.normalize(raw) }
        do {
            _ = try MediaURL.normalize(raw)
        } catch {
            #expect((error as? FetchFailure)?.reason == .badURL)
        }
    }

    @Test("a relative redirect Location resolves against the current URL")
    func resolvesRelative() throws {
        let base = try #require(URL(string: "http://127.0.0.1:8080/chain/3"))
        let url = try MediaURL.normalize("/media/photo.jpg", relativeTo: base)
        #expect(url.absoluteString == "http://127.0.0.1:8080/media/photo.jpg")
    }
}
