import Foundation
@_spi(RichPushInternal) import RichPushExtension
import Testing

@Suite("Buttons, thumbnail options and media lists from the payload")
struct ActionsTests {
    static let buttons: RichPushJSONValue = .array([
        .object([
            "id": .string("reply"), "title": .string("Reply"), "foreground": .bool(true), "icon": .string("arrowshape.turn.up.left"),
            "input": .object(["button": .string("Send"), "placeholder": .string("Message")]),
        ]),
        .object(["id": .string("delete"), "title": .string("Delete"), "destructive": .bool(true), "auth": .bool(true)]),
    ])

    @Test func buttonsBecomeACategoryWithEveryOption() throws {
        let category = try #require(try RichPushCategoryDescription.parse(payload: .object(["buttons": Self.buttons]), category: nil))
        #expect(category.identifier.hasPrefix("richpush.b."))
        #expect(category.identifier.count == "richpush.b.".count + 16)
        #expect(category.buttons.count == 2)
        let reply = category.buttons[0]
        #expect(reply.identifier == "reply")
        #expect(reply.foreground && !reply.destructive)
        #expect(reply.icon == "arrowshape.turn.up.left")
        #expect(reply.textInput == RichPushButton.TextInput(buttonTitle: "Send", placeholder: "Message"))
        let delete = category.buttons[1]
        #expect(delete.destructive && delete.authenticationRequired && !delete.foreground)
        #expect(delete.textInput == nil)
        // The same buttons reuse one category; a payload category name wins.
        #expect(try RichPushCategoryDescription.parse(payload: .object(["buttons": Self.buttons]), category: nil)?.identifier == category.identifier)
        #expect(try RichPushCategoryDescription.parse(payload: .object(["buttons": Self.buttons]), category: "chat")?.identifier == "chat")
        #expect(try RichPushCategoryDescription.parse(payload: .object([:]), category: nil) == nil)
    }

    @Test func malformedButtonsAreRejectedWithACode() {
        let bad: [RichPushJSONValue] = [
            .string("reply"),
            .array([.object(["title": .string("no id")])]),
            .array([.object(["id": .string("a"), "title": .int(3)])]),
            .array([.object(["id": .string("a"), "title": .string("A"), "destructive": .string("yes")])]),
            .array([.object(["id": .string("a"), "title": .string("A")]), .object(["id": .string("a"), "title": .string("B")])]),
            .array((0..<5).map { .object(["id": .string("b\($0)"), "title": .string("B")]) }),
            .array([.object(["id": .string("a"), "title": .string(String(repeating: "x", count: 65))])]),
        ]
        for value in bad {
            let error = #expect(throws: PayloadOptionError.self) {
                try RichPushCategoryDescription.parse(payload: .object(["buttons": value]), category: nil)
            }
            #expect(error?.code == .invalidButtons)
        }
    }

    @Test func mergingKeepsTheAppsCategoriesAndABoundedNumberOfOurs() {
        let app = RichPushCategoryDescription(identifier: "image", buttons: [])
        var registered = [app]
        for i in 0..<5 {
            let ours = RichPushCategoryDescription(identifier: "richpush.b.\(i)", buttons: [RichPushButton(identifier: "x", title: "X")])
            registered = RichPushCategoryDescription.merge(existing: registered, appCategoryIdentifiers: ["image"], adding: ours, limit: 3)
        }
        #expect(registered.map(\.identifier) == ["image", "richpush.b.2", "richpush.b.3", "richpush.b.4"])
        // Re-adding one moves it to the most recent end; the app's own is never replaced.
        let again = RichPushCategoryDescription(identifier: "richpush.b.2", buttons: [])
        registered = RichPushCategoryDescription.merge(existing: registered, appCategoryIdentifiers: ["image"], adding: again, limit: 3)
        #expect(registered.map(\.identifier) == ["image", "richpush.b.3", "richpush.b.4", "richpush.b.2"])
        let clash = RichPushCategoryDescription(identifier: "image", buttons: [RichPushButton(identifier: "y", title: "Y")])
        let merged = RichPushCategoryDescription.merge(existing: registered, appCategoryIdentifiers: ["image"], adding: clash, limit: 3)
        #expect(merged.first == app)
    }

    @Test func thumbnailOptionsAreReadAndValidated() throws {
        let payload: RichPushJSONValue = .object([
            "thumbnail": .object(["clip": .array([.double(0.25), .int(0), .double(0.5), .double(0.5)]), "time": .double(2.5), "hidden": .bool(false)])
        ])
        let options = try #require(try RichPushThumbnailOptions.parse(payload: payload))
        #expect(options.clippingRect == RichPushThumbnailOptions.ClippingRect(x: 0.25, y: 0, width: 0.5, height: 0.5))
        #expect(options.time == 2.5)
        #expect(options.hidden == false)
        #expect(try RichPushThumbnailOptions.parse(payload: .object(["thumbnail": .object(["hidden": .bool(true)])]))?.hidden == true)
        #expect(try RichPushThumbnailOptions.parse(payload: .object([:])) == nil)
        let bad: [RichPushJSONValue] = [
            .object(["clip": .array([.double(0.6), .int(0), .double(0.5), .double(0.5)])]),
            .object(["clip": .array([.int(0), .int(0), .int(0), .int(1)])]),
            .object(["clip": .array([.int(0), .int(0), .int(1)])]),
            .object(["clip": .array([.double(-0.1), .int(0), .double(0.5), .double(0.5)])]),
            .object(["time": .double(-1)]),
            .object(["time": .string("2s")]),
            .object(["hidden": .int(1)]),
            .string("yes"),
        ]
        for value in bad {
            let error = #expect(throws: PayloadOptionError.self) { try RichPushThumbnailOptions.parse(payload: .object(["thumbnail": value])) }
            #expect(error?.code == .invalidThumbnail)
        }
    }

    @Test func aMediaArrayIsReadInOrderAndASingleURLIsAListOfOne() {
        let paths = RichPushPayloadKeyPath.defaultMediaKeyPaths
        let many: RichPushJSONValue = .object(["media-url": .array([.string("https://a/1.jpg"), .string(""), .int(3), .string("https://a/2.png")])])
        #expect(MediaURLList.urls(in: many, keyPaths: paths) == ["https://a/1.jpg", "https://a/2.png"])
        #expect(MediaURLList.urls(in: .object(["image-url": .string("https://a/x.jpg")]), keyPaths: paths) == ["https://a/x.jpg"])
        #expect(MediaURLList.urls(in: .object(["media-url": .array([])]), keyPaths: paths).isEmpty)
        let tooMany: RichPushJSONValue = .object(["media-url": .array((0..<15).map { .string("https://a/\($0).jpg") })])
        #expect(MediaURLList.urls(in: tooMany, keyPaths: paths).count == MediaURLList.maximumCount)
    }
}
