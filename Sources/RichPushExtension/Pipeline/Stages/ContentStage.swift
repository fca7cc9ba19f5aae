import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Stage 2: the content rules, before any network work: the payload's text (with the default
/// body), its push id and vendor, the category its `buttons` make, its thumbnail options; and,
/// once media is attached, the button slot of the media's category.
///
/// A payload that is not one (`aps` malformed, not JSON) is delivered as iOS would deliver it:
/// outcome `original`, reason `invalid_payload`.
struct ContentStage: PipelineStage {
    let rules: ContentRules
    let pushIDKeyPaths: [RichPushPayloadKeyPath]
    let buttonCategorySlots: Int

    func prepare(_ work: inout PipelineWork) {
        let json = work.json
        if let json {
            do {
                work.payload = try RichPushNotificationPayload(json: json)
            } catch {
                work.problem = (error as? RichPushError)?.message ?? String(describing: error)
            }
        }
        let found = json.flatMap { RichPushPayloadLookup.pushID(in: $0, keyPaths: pushIDKeyPaths) }
        var best: RichPushResult
        if let payload = work.payload {
            best = RichPushResult(
                outcome: .textOnly, reason: nil, httpStatus: nil, pushID: found?.value, elapsedMs: 0, content: rules.bestAttempt(from: payload),
                receipt: RichPushReceiptReport(status: .pending), message: "best attempt: text only")
        } else {
            best = RichPushResult(
                outcome: .original, reason: .invalidPayload, httpStatus: nil, pushID: found?.value, elapsedMs: 0,
                content: ContentRules.original(from: json), receipt: RichPushReceiptReport(status: .pending),
                message: "invalid payload: \(work.problem ?? "unreadable")")
        }
        best.pushIDKeyPath = found?.path
        best.vendor = json.flatMap(RichPushVendor.recognise)

        // Issue 6: buttons and thumbnail options, read from the (decrypted) payload.
        if let json {
            let category = json["aps"]?["category"]?.stringValue
            work.payloadNamesCategory = !(category ?? "").isEmpty
            do {
                work.buttons = try RichPushCategoryDescription.parse(payload: json, category: category)
            } catch {
                best.details.notes.append(error.code.rawValue)
            }
            do {
                best.details.thumbnail = try RichPushThumbnailOptions.parse(payload: json)
            } catch {
                best.details.notes.append(error.code.rawValue)
            }
            if work.payload != nil, let buttons = work.buttons { best.content.categoryIdentifier = buttons.identifier }
        }
        work.best = best
    }

    func finish(_ result: inout RichPushResult, work: PipelineWork) {
        guard let buttons = work.buttons else { return }
        let category = buttonCategory(buttons, for: result.content, payloadNamesCategory: work.payloadNamesCategory)
        result.details.category = category
        if result.outcome != .original { result.content.categoryIdentifier = category.identifier }
    }

    /// The buttons' category for what is delivered: with media attached (and no `aps.category`),
    /// the button slot of the media's category (`image.buttons.2`), so the content extension that
    /// shows the media still gets the notification; without media, `richpush.b.<hash>`.
    func buttonCategory(
        _ category: RichPushCategoryDescription, for content: RichPushNotificationContent, payloadNamesCategory: Bool
    ) -> RichPushCategoryDescription {
        guard !payloadNamesCategory, buttonCategorySlots > 0,
            let type = content.attachments.first?.type, let kind = RichPushMediaFormat.forUniformTypeIdentifier(type)?.kind,
            let base = rules.mediaCategoryIdentifiers[kind], !base.isEmpty
        else { return category }
        var slotted = category
        let slot = RichPushCategoryDescription.preferredButtonSlot(for: category.buttons, slots: buttonCategorySlots)
        slotted.identifier = RichPushCategoryDescription.buttonSlotIdentifier(base: base, slot: slot)
        return slotted
    }
}
