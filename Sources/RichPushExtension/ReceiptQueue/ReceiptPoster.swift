import Foundation

/// Sends one form-encoded receipt and reports the HTTP status.
///
/// `HTTPFormPoster` is the real one (libcurl where there is no URLSession worth using, URLSession
/// on Apple platforms); tests may supply their own.
public protocol ReceiptPoster: Sendable {
    /// POSTs `body` as `application/x-www-form-urlencoded`.
    ///
    /// - Parameters:
    ///   - body: the form body (`Receipt.formEncoded()`).
    ///   - url: the receipts URL.
    ///   - timeout: the whole request's limit, in seconds.
    /// - Returns: the HTTP status, or `nil` for a network error or timeout.
    func post(form body: String, to url: URL, timeout: Double) async -> Int?
}
