import Foundation
import RichPushExtension

extension RichPushResultDetails {
    /// The `details` object of `richpush simulate --json`:
    /// `{"decryption", "media": {"requested", "attached", "cacheHits", "fetchMs"}, "badge",
    ///   "category": {"identifier", "buttons": [{"id", "title", "destructive", "foreground",
    ///   "authenticationRequired", "icon", "textInput": {"buttonTitle", "placeholder"}}]},
    ///   "thumbnail": {"clippingRect": {"x", "y", "width", "height"}, "time", "hidden"}, "notes",
    ///   "communication": {"sender": {"id", "name", "avatar": {"bytes", "type", "sourceType",
    ///   "sourceBytes", "converted"}}, "conversation": {"id", "name", "group", "avatar"}, "shown",
    ///   "fallback", "note"} or null}`.
    var json: RichPushJSONValue {
        func opt(_ s: String?) -> RichPushJSONValue { s.map(RichPushJSONValue.string) ?? .null }
        var category: RichPushJSONValue = .null
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
        var thumbnail: RichPushJSONValue = .null
        if let t = self.thumbnail {
            thumbnail = .object([
                "clippingRect": t.clippingRect.map {
                    .object(["x": .double($0.x), "y": .double($0.y), "width": .double($0.width), "height": .double($0.height)])
                } ?? .null,
                "time": t.time.map(RichPushJSONValue.double) ?? .null,
                "hidden": .bool(t.hidden),
            ])
        }
        return .object([
            "decryption": opt(decryption),
            "media": .object([
                "requested": .int(mediaRequested), "attached": .int(mediaAttached),
                "cacheHits": .int(cacheHits), "fetchMs": .int(fetchMs),
            ]),
            "badge": badge.map(RichPushJSONValue.int) ?? .null,
            "category": category,
            "thumbnail": thumbnail,
            "notes": .array(notes.map(RichPushJSONValue.string)),
            "communication": communication.map(\.json) ?? .null,
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
        if let communication { rows += communication.summaryRows }
        return rows
    }
}

extension RichPushResultDetails.Communication {
    /// The `communication` object of `details`.
    var json: RichPushJSONValue {
        func avatar(_ a: Avatar?) -> RichPushJSONValue {
            a.map {
                .object([
                    "bytes": .int($0.bytes), "type": .string($0.type), "sourceType": .string($0.sourceType), "sourceBytes": .int($0.sourceBytes),
                    "converted": .bool($0.converted),
                ])
            } ?? .null
        }
        let sender: RichPushJSONValue =
            message.map { .object(["id": .string($0.sender.id), "name": .string($0.sender.name), "avatar": avatar(senderAvatar)]) } ?? .null
        let conversation: RichPushJSONValue =
            message.map {
                .object([
                    "id": .string($0.conversation.id), "name": $0.conversation.name.map(RichPushJSONValue.string) ?? .null,
                    "group": .bool($0.conversation.isGroup), "avatar": avatar(conversationAvatar),
                ])
            } ?? .null
        return .object([
            "sender": sender, "conversation": conversation, "shown": .bool(shown), "fallback": fallback.map { .string($0.rawValue) } ?? .null,
            "note": note.map(RichPushJSONValue.string) ?? .null,
        ])
    }

    /// The readable summary's rows: sender, conversation, avatars' bytes, and the fallback's reason.
    var summaryRows: [(String, String)] {
        func avatar(_ a: Avatar?) -> String {
            guard let a else { return "no avatar" }
            let format = { (type: String) in RichPushMediaFormat.forUniformTypeIdentifier(type)?.name ?? type }
            return "avatar \(a.bytes) bytes \(format(a.type))" + (a.converted ? " (converted from \(format(a.sourceType)), \(a.sourceBytes) bytes)" : "")
        }
        var rows: [(String, String)] = []
        if let message {
            rows.append(("sender", "\(message.sender.name) (\(message.sender.id)), " + avatar(senderAvatar)))
            let c = message.conversation
            if c.isGroup {
                rows.append(("conversation", "\(c.name ?? "(no name)") (\(c.id)), group, " + avatar(conversationAvatar)))
            } else {
                rows.append(("conversation", "one-to-one (\(c.id))"))
            }
        }
        if shown {
            rows.append(("message", "shown as a communication notification"))
        } else if let fallback {
            rows.append(("message", "fallback \(fallback.rawValue): \(note ?? "")"))
        } else if let note {
            rows.append(("message", note))
        }
        return rows
    }
}
