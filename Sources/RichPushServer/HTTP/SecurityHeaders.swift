/// The headers every answer of `richpush serve` carries (the C shim adds them to each response,
/// the empty `202` of a receipt included).
///
/// - `Content-Security-Policy`: no scripts, no outside resources at all (`default-src 'none'`);
///   inline styles only (the dashboard's CSS and SVG are inline); forms post only to this server;
///   never framed (`frame-ancestors 'none'`), no `<base>`.
/// - `X-Frame-Options: DENY` for browsers without CSP level 2.
/// - `X-Content-Type-Options: nosniff`: a JSON or text answer is never run as a script or page.
/// - `Referrer-Policy: same-origin`: dashboard URLs (push ids, search terms) never leak in a
///   `Referer` to another site. Not `no-referrer`: under it browsers send `Origin: null` on the
///   dashboard's own form posts, which the same-origin check (`OriginPolicy`) must refuse.
public enum SecurityHeaders {
    /// The Content-Security-Policy of every answer.
    public static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// Every header, as (name, value) pairs.
    public static let all: [(name: String, value: String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Frame-Options", "DENY"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "same-origin"),
    ]

    /// The headers as "Name: value" lines for the C shim.
    static var lines: String { all.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }
}
