import RichPushExtension

extension PipelineDetails {
    /// The `details` object of `richpush simulate --json`:
    /// `{"decryption", "media": {"requested", "attached", "cacheHits", "fetchMs"}, "badge",
    ///   "category": {"identifier", "buttons": [{"id", "title", "destructive", "foreground",
    ///   "authenticationRequired", "icon", "textInput": {"buttonTitle", "placeholder"}}]},
    ///   "thumbnail": {"clippingRect": {"x", "y", "width", "height"}, "time", "hidden"}, "notes"}`.
    var json: JSONValue {
        func opt(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        var category: JSONValue = .null
        if let c = self.category {
            category = .object([
                "identifier": .string(c.identifier),
                "buttons": .array(
                    c.buttons.map { b in
                        .object([
                            "id": .string(b.identifier), "title": .string(b.title), "destructive": .bool(b.destructive),
                            "foreground": .bool(b.foreground), "authenticationRequired": .bool(b.authenticationRequired),
                            "icon": opt(b.icon),
                            "textInput": b.textInput.map { .object(["buttonTitle": .string($0.buttonTitle), "placeholder": .string($0.placeholder)]) } ?? .null,
                        ])
                    }),
            ])
        }
        var thumbnail: JSONValue = .null
        if let t = self.thumbnail {
            thumbnail = .object([
                "clippingRect": t.clippingRect.map {
                    .object(["x": .double($0.x), "y": .double($0.y), "width": .double($0.width), "height": .double($0.height)])
                } ?? .null,
                "time": t.time.map(JSONValue.double) ?? .null,
                "hidden": .bool(t.hidden),
            ])
        }
        return .object([
            "decryption": opt(decryption),
            "media": .object([
                "requested": .int(mediaRequested), "attached": .int(mediaAttached),
                "cacheHits": .int(cacheHits), "fetchMs": .int(fetchMs),
            ]),
            "badge": badge.map(JSONValue.int) ?? .null,
            "category": category,
            "thumbnail": thumbnail,
            "notes": .array(notes.map(JSONValue.string)),
        ])
    }

    /// Rows for the readable summary (label, value): only what the payload used.
    var summaryRows: [(String, String)] {
        var rows: [(String, String)] = []
        if let decryption { rows.append(("decryption", decryption)) }
        if mediaRequested > 1 || cacheHits > 0 {
            rows.append(("media", "\(mediaAttached) of \(mediaRequested) attached" + (cacheHits > 0 ? ", \(cacheHits) from the cache" : "")))
        }
        if let category {
            rows.append(("buttons", category.buttons.map(\.title).joined(separator: " | ") + " (category \(category.identifier))"))
        }
        if let thumbnail {
            var parts: [String] = []
            if let r = thumbnail.clippingRect { parts.append("clip \(r.x),\(r.y) \(r.width)×\(r.height)") }
            if let t = thumbnail.time { parts.append("time \(t) s") }
            if thumbnail.hidden { parts.append("hidden") }
            rows.append(("thumbnail", parts.joined(separator: ", ")))
        }
        if let badge { rows.append(("badge op", "badge now \(badge)")) }
        if !notes.isEmpty { rows.append(("ignored", notes.joined(separator: ", "))) }
        return rows
    }
}
