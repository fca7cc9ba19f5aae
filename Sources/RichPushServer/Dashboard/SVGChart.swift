import Foundation

/// Inline SVG charts for the dashboard (no outside assets, no JavaScript).
enum SVGChart {
    /// Colours shared by the charts and the legend.
    enum Palette {
        static let sent = "#d0d7e6"
        static let accepted = "#a5b4d4"
        static let delivered = "#3b5bdb"
        static let opened = "#f08c00"
        static let reason = "#e8590c"
        /// Media the send-time check caught (optimised, sent as text, or the push refused).
        static let prevented = "#2f9e44"
        static let timing = "#0c8599"
        static let p95 = "#e8590c"
        static let grid = "#e6e9f0"
        static let axis = "#8a93a6"
    }

    /// A "nice" axis maximum and step for values up to `maximum` (1, 2, 2.5, 5 × 10^n steps).
    static func niceScale(_ maximum: Int, ticks: Int = 4) -> (top: Int, step: Int) {
        guard maximum > 0 else { return (ticks, 1) }
        let raw = Double(maximum) / Double(ticks)
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
        let stepInt = max(1, Int(step.rounded(.up)))
        let top = Int((Double(maximum) / Double(stepInt)).rounded(.up)) * stepInt
        return (top, stepInt)
    }

    /// A compact count for axis labels: 950, 1.2k, 3.4M.
    static func short(_ n: Int) -> String {
        if n >= 1_000_000 { return String(format: n % 1_000_000 == 0 ? "%.0fM" : "%.1fM", Double(n) / 1e6) }
        if n >= 1_000 { return String(format: n % 1_000 == 0 ? "%.0fk" : "%.1fk", Double(n) / 1e3) }
        return String(n)
    }

    /// Stacked bars of delivered and opened receipts per time bucket.
    static func timeline(_ buckets: [DashboardSnapshot.TimeBucket], bucketSeconds: Int) -> String {
        let width = 860.0, height = 260.0
        let left = 48.0, right = 12.0, top = 12.0, bottom = 30.0
        let plotW = width - left - right, plotH = height - top - bottom
        guard !buckets.isEmpty else { return empty(width: width, height: height, "No receipts yet") }
        let maxValue = buckets.map { $0.delivered + $0.opened }.max() ?? 0
        let (axisTop, step) = niceScale(maxValue)
        var svg = open(width: width, height: height, label: "Receipts over time")
        var tick = 0
        while tick <= axisTop {
            let y = top + plotH - plotH * Double(tick) / Double(axisTop)
            svg += line(left, y, width - right, y, Palette.grid)
            svg += text(left - 8, y + 4, short(tick), anchor: "end", size: 11, fill: Palette.axis)
            tick += step
        }
        let slot = plotW / Double(buckets.count)
        let barW = max(1, slot * 0.72)
        for (i, b) in buckets.enumerated() {
            let x = left + Double(i) * slot + (slot - barW) / 2
            let dH = plotH * Double(b.delivered) / Double(axisTop)
            let oH = plotH * Double(b.opened) / Double(axisTop)
            let base = top + plotH
            if b.delivered > 0 {
                svg += rect(x, base - dH, barW, dH, Palette.delivered, title: "\(label(b.startMs, bucketSeconds)) · delivered \(b.delivered)")
            }
            if b.opened > 0 {
                svg += rect(x, base - dH - oH, barW, oH, Palette.opened, title: "\(label(b.startMs, bucketSeconds)) · opened \(b.opened)")
            }
        }
        svg += line(left, top + plotH, width - right, top + plotH, Palette.axis)
        let labelEvery = max(1, Int((Double(buckets.count) / 8).rounded(.up)))
        for (i, b) in buckets.enumerated() where i % labelEvery == 0 {
            let x = left + Double(i) * slot + slot / 2
            svg += text(x, height - 10, label(b.startMs, bucketSeconds), anchor: "middle", size: 11, fill: Palette.axis)
        }
        return svg + "</svg>"
    }

    /// Horizontal bars: one per reason, most frequent first.
    ///
    /// - Parameters:
    ///   - reasons: reason → count, most first (the first 9 are drawn).
    ///   - label: the chart's accessible name.
    ///   - none: what an empty chart says.
    ///   - color: the bars' color.
    /// - Returns: the SVG.
    static func reasons(
        _ reasons: [(reason: String, count: Int)], label: String = "Reasons media was not attached", none: String = "No media failures reported",
        color: String = Palette.reason
    ) -> String {
        let shown = Array(reasons.prefix(9))
        let rowH = 28.0, width = 420.0
        let height = max(120, Double(shown.count) * rowH + 16)
        guard !shown.isEmpty else { return empty(width: width, height: 120, none) }
        let total = max(1, reasons.map(\.count).reduce(0, +))
        let maxCount = max(1, shown.map(\.count).max() ?? 1)
        let labelW = 150.0, valueW = 92.0
        let barMax = width - labelW - valueW - 8
        var svg = open(width: width, height: height, label: label)
        for (i, item) in shown.enumerated() {
            let y = 8 + Double(i) * rowH
            let w = max(2, barMax * Double(item.count) / Double(maxCount))
            svg += text(labelW - 8, y + 16, item.reason, anchor: "end", size: 12, fill: "#1d2433", mono: true)
            svg += rect(labelW, y + 4, w, rowH - 10, color, rx: 3, title: "\(item.reason): \(item.count)")
            let share = HTML.percent(Double(item.count) / Double(total))
            svg += text(labelW + w + 6, y + 16, "\(HTML.number(item.count)) · \(share)", anchor: "start", size: 11.5, fill: "#5b6478")
        }
        return svg + "</svg>"
    }

    /// Nested bars per push: sent ⊇ accepted ⊇ delivered ⊇ opened, each push on its own scale.
    static func funnel(_ pushes: [PushStatistics]) -> String {
        let shown = Array(pushes.prefix(8))
        let rowH = 40.0, width = 860.0
        guard !shown.isEmpty else { return empty(width: width, height: 120, "No pushes yet") }
        let height = Double(shown.count) * rowH + 12
        let labelW = 150.0, valueW = 270.0
        let barMax = width - labelW - valueW - 16
        var svg = open(width: width, height: height, label: "Funnel per push")
        for (i, p) in shown.enumerated() {
            let y = 6 + Double(i) * rowH
            let scale = Double(max(1, p.sent ?? 0, p.accepted ?? 0, p.delivered, p.opened))
            let safeID = IdentifierRule.displayable(p.pushID)
            let shownID = HTML.truncated(safeID, 18)
            svg += text(labelW - 10, y + 22, shownID, anchor: "end", size: 12.5, fill: "#1d2433", mono: true, title: shownID == safeID ? nil : safeID)
            let stages: [(Int?, String, Double)] = [
                (p.sent, Palette.sent, 26), (p.accepted, Palette.accepted, 26), (p.delivered, Palette.delivered, 18), (p.opened, Palette.opened, 10),
            ]
            svg += rect(labelW, y + 6, barMax, 26, "#f1f3f7", rx: 4, title: nil)
            for (value, color, h) in stages {
                guard let value, value > 0 else { continue }
                let w = max(2, barMax * Double(value) / scale)
                svg += rect(labelW, y + 6 + (26 - h) / 2, w, h, color, rx: 3, title: nil)
            }
            var summary = "\(HTML.number(p.delivered)) delivered · \(HTML.number(p.opened)) opened"
            if p.delivered > 0 { summary += " (\(HTML.percent(Double(p.opened) / Double(p.delivered))))" }
            svg += text(labelW + barMax + 12, y + 17, summary, anchor: "start", size: 12, fill: "#1d2433")
            let sentText: String
            if let sent = p.sent, let accepted = p.accepted {
                sentText =
                    "sent \(HTML.number(sent)) · accepted \(HTML.number(accepted))"
                    + (p.displayRate.map { " · display \(HTML.percent($0))" } ?? "")
            } else {
                sentText = "sent — (no send recorded)"
            }
            svg += text(labelW + barMax + 12, y + 32, sentText, anchor: "start", size: 11, fill: "#7a8397")
        }
        return svg + "</svg>"
    }

    /// Vertical bars of the extension's `elapsed_ms` distribution.
    static func timing(_ buckets: [DashboardSnapshot.TimingBucket], p50: Int?, p95: Int?) -> String {
        let width = 420.0, height = 260.0
        let left = 40.0, right = 8.0, top = 14.0, bottom = 44.0
        let plotW = width - left - right, plotH = height - top - bottom
        let maxValue = buckets.map(\.count).max() ?? 0
        guard maxValue > 0 else { return empty(width: width, height: height, "No elapsed_ms reported") }
        let (axisTop, step) = niceScale(maxValue)
        var svg = open(width: width, height: height, label: "Extension timing distribution")
        var tick = 0
        while tick <= axisTop {
            let y = top + plotH - plotH * Double(tick) / Double(axisTop)
            svg += line(left, y, width - right, y, Palette.grid)
            svg += text(left - 6, y + 4, short(tick), anchor: "end", size: 10.5, fill: Palette.axis)
            tick += step
        }
        let slot = plotW / Double(buckets.count)
        for (i, b) in buckets.enumerated() {
            let h = plotH * Double(b.count) / Double(axisTop)
            let x = left + Double(i) * slot + slot * 0.12
            let name = b.upperMs.map { "\(HTML.duration(ms: b.lowerMs))–\(HTML.duration(ms: $0))" } ?? "≥ \(HTML.duration(ms: b.lowerMs))"
            let contains = { (v: Int?) -> Bool in
                guard let v else { return false }
                return v >= b.lowerMs && (b.upperMs.map { v < $0 } ?? true)
            }
            // The p95 bucket is orange even when p50 falls in it too (the caption promises it).
            let color = contains(p95) ? Palette.p95 : Palette.timing
            svg += rect(x, top + plotH - h, slot * 0.76, h, color, rx: 2, title: "\(name): \(b.count)")
            let short = b.upperMs.map { u in u >= 1000 ? "<\(u / 1000)s" : "<\(u)" } ?? "30s+"
            svg += text(left + Double(i) * slot + slot / 2, top + plotH + 16, short, anchor: "middle", size: 10.5, fill: Palette.axis)
        }
        svg += line(left, top + plotH, width - right, top + plotH, Palette.axis)
        svg += text(left, height - 6, "ms unless marked s · orange: the bucket holding p95", anchor: "start", size: 10.5, fill: "#7a8397")
        return svg + "</svg>"
    }

    // MARK: Primitives

    /// An `<svg>` that scales to its box; a chart wider than 600 units is `class="wide"`, which a
    /// narrow screen scrolls sideways rather than shrinks (PageStyle).
    private static func open(width: Double, height: Double, label: String) -> String {
        let wide = width > 600 ? " class=\"wide\"" : ""
        return
            "<svg\(wide) viewBox=\"0 0 \(fmt(width)) \(fmt(height))\" width=\"100%\" role=\"img\" aria-label=\"\(HTML.escape(label))\" xmlns=\"http://www.w3.org/2000/svg\">"
    }

    private static func empty(width: Double, height: Double, _ message: String) -> String {
        open(width: width, height: height, label: message)
            + text(width / 2, height / 2, message, anchor: "middle", size: 14, fill: Palette.axis) + "</svg>"
    }

    private static func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ fill: String, rx: Double = 1.5, title: String?) -> String {
        let t = title.map { "<title>\(HTML.escape($0))</title>" } ?? ""
        return "<rect x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(w))\" height=\"\(fmt(max(0, h)))\" rx=\"\(fmt(rx))\" fill=\"\(fill)\">\(t)</rect>"
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ stroke: String) -> String {
        "<line x1=\"\(fmt(x1))\" y1=\"\(fmt(y1))\" x2=\"\(fmt(x2))\" y2=\"\(fmt(y2))\" stroke=\"\(stroke)\" stroke-width=\"1\"/>"
    }

    private static func text(
        _ x: Double, _ y: Double, _ s: String, anchor: String, size: Double, fill: String, mono: Bool = false, title: String? = nil
    ) -> String {
        let family = mono ? " font-family=\"ui-monospace,SFMono-Regular,Menlo,Consolas,monospace\"" : ""
        let tooltip = title.map { "<title>\(HTML.escape($0))</title>" } ?? ""
        return
            "<text x=\"\(fmt(x))\" y=\"\(fmt(y))\" text-anchor=\"\(anchor)\" font-size=\"\(fmt(size))\" fill=\"\(fill)\"\(family)>\(tooltip)\(HTML.escape(s))</text>"
    }

    private static func fmt(_ d: Double) -> String { String(format: "%.1f", d) }

    /// A bucket's start as HH:MM (or HH:MM:SS for buckets under a minute, or MM-DD HH:MM for
    /// buckets of an hour or more), UTC.
    static func label(_ ms: Int, _ bucketSeconds: Int) -> String {
        let seconds = ms / 1000
        let day = seconds % 86400
        let hh = day / 3600, mm = (day % 3600) / 60, ss = day % 60
        if bucketSeconds < 60 { return String(format: "%02d:%02d:%02d", hh, mm, ss) }
        if bucketSeconds >= 3600 {
            let date = Date(timeIntervalSince1970: Double(seconds))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            let c = calendar.dateComponents([.month, .day], from: date)
            return String(format: "%02d-%02d %02d:00", c.month ?? 0, c.day ?? 0, hh)
        }
        return String(format: "%02d:%02d", hh, mm)
    }
}
