import Foundation
import RichPushServer

/// Renders per-push figures as plain-text tables for `richpush stats`.
enum StatsTable {
    /// One line per push.
    static func list(_ pushes: [PushStatistics]) -> String {
        guard !pushes.isEmpty else { return "No pushes yet. Post a receipt: curl -d push_id=2018001 http://127.0.0.1:8080/v1/receipts\n" }
        let header = ["push_id", "source", "sent", "accepted", "delivered", "opened", "display", "media", "top reason", "p50", "p95", "last seen"]
        let rows = pushes.map { p -> [String] in
            let reported = p.outcomes.values.reduce(0, +)
            let attached = p.outcomes["media_attached"] ?? 0
            let top = p.reasons.max { ($0.value, $1.key) < ($1.value, $0.key) }
            return [
                p.pushID, source(p.sources), p.sent.map(number) ?? "—", p.accepted.map(number) ?? "—", number(p.delivered), number(p.opened),
                p.displayRate.map(percent) ?? "—", reported > 0 ? percent(Double(attached) / Double(reported)) : "—",
                top.map { "\($0.key) (\(number($0.value)))" } ?? "—", p.elapsedMs.p50.map(ms) ?? "—", p.elapsedMs.p95.map(ms) ?? "—",
                p.lastSeen.map(short) ?? "—",
            ]
        }
        let leftAligned: Set<Int> = [0, 1, 8, 11]
        return table(header: header, rows: rows, leftAligned: leftAligned)
    }

    /// One push in detail.
    static func detail(_ p: PushStatistics) -> String {
        var out = "push_id      \(p.pushID)\n"
        out += "source       \(p.sources.isEmpty ? "— (receipts only)" : source(p.sources))\n"
        out += "sent         \(p.sent.map(number) ?? "— (no send recorded)")\n"
        out += "accepted     \(p.accepted.map(number) ?? "—")\n"
        if let skipped = p.skipped, skipped > 0 { out += "skipped      \(number(skipped)) (tokens known inactive or bad)\n" }
        out += "delivered    \(number(p.delivered))\n"
        out += "opened       \(number(p.opened))" + (p.delivered > 0 ? " (\(percent(Double(p.opened) / Double(p.delivered))) of delivered)" : "") + "\n"
        out += "display rate \(p.displayRate.map(percent) ?? "— (needs accepted counts: send it with POST /v1/pushes, or richpush record-send)")\n"
        out += "media bytes  \(number(p.mediaBytes))\n"
        out +=
            "elapsed_ms   p50 \(p.elapsedMs.p50.map(ms) ?? "—"), p95 \(p.elapsedMs.p95.map(ms) ?? "—") over \(number(p.elapsedMs.count)) receipt\(p.elapsedMs.count == 1 ? "" : "s")\n"
        out += "first seen   \(p.firstSeen ?? "—")\nlast seen    \(p.lastSeen ?? "—")\n"
        if !p.outcomes.isEmpty {
            out += "\noutcome\n" + breakdown(p.outcomes)
        }
        if !p.reasons.isEmpty {
            out += "\nreason (media not attached)\n" + breakdown(p.reasons)
        }
        return out
    }

    /// `APNs`, `FCM`, `onesignal (recorded)`, joined with `+`; `—` without sends.
    static func source(_ sources: [String]) -> String {
        guard !sources.isEmpty else { return "—" }
        return sources.map { $0 == "apns" ? "APNs" : $0 == "fcm" ? "FCM" : "\($0) (recorded)" }.joined(separator: " + ")
    }

    private static func breakdown(_ counts: [String: Int]) -> String {
        let total = max(1, counts.values.reduce(0, +))
        let rows = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map {
            ["  " + $0.key, number($0.value), percent(Double($0.value) / Double(total))]
        }
        return table(header: nil, rows: rows, leftAligned: [0])
    }

    /// Columns padded to the widest cell, measured in terminal columns (`DisplayWidth`: a CJK
    /// push id takes two per character).
    static func table(header: [String]?, rows: [[String]], leftAligned: Set<Int>) -> String {
        let all = (header.map { [$0] } ?? []) + rows
        let columns = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], DisplayWidth.of(cell)) } }
        var out = ""
        for row in all {
            let cells = row.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - DisplayWidth.of(cell))
                return leftAligned.contains(i) ? cell + pad : pad + cell
            }
            out += cells.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
        }
        return out
    }

    static func number(_ n: Int) -> String {
        let digits = String(abs(n))
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(ch)
        }
        return (n < 0 ? "-" : "") + out
    }

    static func percent(_ x: Double) -> String { String(format: "%.1f%%", x * 100) }

    static func ms(_ v: Int) -> String { v < 1000 ? "\(v) ms" : String(format: "%.1f s", Double(v) / 1000) }

    /// ISO 8601 → `11-30 03:27:32`.
    static func short(_ iso: String) -> String {
        let c = Array(iso)
        guard c.count >= 19 else { return iso }
        return String(c[5..<10]) + " " + String(c[11..<19])
    }
}
