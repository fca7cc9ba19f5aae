#if !canImport(UserNotifications)
import Foundation
import RichPushTestSupport
import Testing
import UserNotificationsStandIn

/// `UNNotificationAttachment(identifier:url:options:)` accepts and rejects files as iOS does.
@Suite struct StandInAttachmentTests {
    private func code(_ body: () throws -> Void) -> UNError.Code? {
        do {
            try body()
            return nil
        } catch let error as UNError {
            return error.code
        } catch {
            return nil
        }
    }

    private func copy(_ fixture: String, to name: String, in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Fixtures.media(fixture), to: url)
        return url
    }

    @Test func aJPEGFileWithItsExtensionIsAcceptedAsPublicJPEG() throws {
        let attachment = try UNNotificationAttachment(identifier: "image", url: Fixtures.media("photo.jpg"), options: nil)
        #expect(attachment.type == "public.jpeg")
        #expect(attachment.identifier == "image")
        #expect(attachment.url == Fixtures.media("photo.jpg"))
    }

    @Test func anEmptyIdentifierGetsAGeneratedOne() throws {
        let attachment = try UNNotificationAttachment(identifier: "", url: Fixtures.media("logo.png"))
        #expect(!attachment.identifier.isEmpty)
        #expect(attachment.type == "public.png")
    }

    @Test func anHTTPURLIsAnInvalidURL() throws {
        let url = try #require(URL(string: "https://media.example.com/photo.jpg"))
        #expect(code { _ = try UNNotificationAttachment(identifier: "i", url: url, options: nil) } == .attachmentInvalidURL)
    }

    @Test func aMissingFileIsAnInvalidURL() {
        let url = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).jpg")
        #expect(code { _ = try UNNotificationAttachment(identifier: "i", url: url, options: nil) } == .attachmentInvalidURL)
    }

    @Test func aDirectoryIsAnInvalidURL() {
        #expect(code { _ = try UNNotificationAttachment(identifier: "i", url: Fixtures.mediaDirectory, options: nil) } == .attachmentInvalidURL)
    }

    /// iOS checks the file's type from its name (or the hint), not its bytes: an HTML page named
    /// `.jpg` gets through here, which is why RichPush checks the bytes itself first
    /// (`RichPushMediaIntegrity`, `StandInValidationTests`).
    @Test func likeIOSItDoesNotReadTheBytes() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = try copy("notfound.html", to: "image.jpg", in: dir)
        #expect(try UNNotificationAttachment(identifier: "i", url: url, options: nil).type == "public.jpeg")
    }

    @Test(arguments: ["photo.webp", "photo.heic", "icon.svg", "tiny.bmp"])
    func mediaIOSDoesNotAttachIsAnUnrecognizedType(fixture: String) {
        #expect(code { _ = try UNNotificationAttachment(identifier: "i", url: Fixtures.media(fixture), options: nil) } == .attachmentUnrecognizedType)
    }

    @Test func aFileWithoutExtensionNeedsATypeHint() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = try copy("photo.jpg", to: "download", in: dir)
        #expect(code { _ = try UNNotificationAttachment(identifier: "i", url: url, options: nil) } == .attachmentUnrecognizedType)
        let hinted = try UNNotificationAttachment(
            identifier: "i", url: url, options: [UNNotificationAttachmentOptionsTypeHintKey: "public.jpeg"])
        #expect(hinted.type == "public.jpeg")
    }

    @Test func aFileNameExtensionAsTypeHintIsAnUnrecognizedType() {
        // Article 002 passes "jpg"; the key wants a UTType identifier.
        #expect(
            code {
                _ = try UNNotificationAttachment(
                    identifier: "i", url: Fixtures.media("photo.jpg"), options: [UNNotificationAttachmentOptionsTypeHintKey: "jpg"])
            } == .attachmentUnrecognizedType)
    }

    @Test func theTypeHintDecidesTheTypeNotTheExtension() throws {
        let hinted = try UNNotificationAttachment(
            identifier: "i", url: Fixtures.media("chime.mp3"), options: [UNNotificationAttachmentOptionsTypeHintKey: "public.jpeg"])
        #expect(hinted.type == "public.jpeg")
        // A hint outside Apple's table is refused even when the extension is fine.
        #expect(
            code {
                _ = try UNNotificationAttachment(
                    identifier: "i", url: Fixtures.media("clip.mp4"), options: [UNNotificationAttachmentOptionsTypeHintKey: "com.apple.quicktime-movie"])
            } == .attachmentUnrecognizedType)
    }

    /// Apple's table has MPEG-4, MPEG, MPEG-2 video and AVI, and neither QuickTime nor MPEG-2
    /// transport streams.
    @Test(arguments: [
        ("clip.mov", nil), ("clip.ts", nil), ("clip.m2v", "public.mpeg-2-video"), ("clip.mpg", "public.mpeg"), ("clip.avi", "public.avi"),
        ("clip.mp4", "public.mpeg-4"), ("song.m4a", "public.mpeg-4-audio"), ("song.aif", "public.aiff-audio"), ("song.wav", "com.microsoft.waveform-audio"),
    ])
    func videoAndAudioFollowApplesTableByExtension(name: String, type: String?) throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent(name)
        try Data([0, 0, 1, 0xBA]).write(to: url)
        if let type {
            #expect(try UNNotificationAttachment(identifier: "v", url: url, options: nil).type == type)
        } else {
            #expect(code { _ = try UNNotificationAttachment(identifier: "v", url: url, options: nil) } == .attachmentUnrecognizedType)
        }
    }

    @Test func unErrorHasApplesTwelveCodesAndBridgesToNSError() {
        let codes: [UNError.Code: Int] = [
            .notificationsNotAllowed: 1, .attachmentInvalidURL: 100, .attachmentUnrecognizedType: 101, .attachmentInvalidFileSize: 102,
            .attachmentNotInDataStore: 103, .attachmentMoveIntoDataStoreFailed: 104, .attachmentCorrupt: 105,
            .notificationInvalidNoDate: 1400, .notificationInvalidNoContent: 1401, .contentProvidingObjectNotAllowed: 1500,
            .contentProvidingInvalid: 1501, .badgeInputInvalid: 1600,
        ]
        for (code, raw) in codes { #expect(code.rawValue == raw) }
        #expect(UNError.attachmentCorrupt == .attachmentCorrupt)
        #expect(UNError.badgeInputInvalid.rawValue == 1600)
        do {
            _ = try UNNotificationAttachment(identifier: "i", url: URL(fileURLWithPath: "/nonexistent.jpg"), options: nil)
            Issue.record("a missing file was accepted")
        } catch {
            let ns = error as NSError
            #expect(ns.domain == UNErrorDomain)
            #expect(ns.code == 100)
            #expect(error.localizedDescription.contains("/nonexistent.jpg"))
            #expect((error as? UNError)?.errorCode == 100)
        }
    }

    @Test func anImageOverTenMegabytesHasAnInvalidFileSize() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = try copy("photo.jpg", to: "big.jpg", in: dir)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 10_000_001)
        try handle.close()
        #expect(code { _ = try UNNotificationAttachment(identifier: "i", url: url, options: nil) } == .attachmentInvalidFileSize)
        let atLimit = try FileHandle(forWritingTo: url)
        try atLimit.truncate(atOffset: 10_000_000)
        try atLimit.close()
        #expect(try UNNotificationAttachment(identifier: "i", url: url, options: nil).type == "public.jpeg")
    }

    @Test func audioOverFiveMegabytesHasAnInvalidFileSize() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = try copy("chime.mp3", to: "long.mp3", in: dir)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 5_000_001)
        try handle.close()
        #expect(code { _ = try UNNotificationAttachment(identifier: "i", url: url, options: nil) } == .attachmentInvalidFileSize)
    }

    @Test func theErrorMatchesAsApplesBridgedErrorsDo() {
        let url = URL(fileURLWithPath: "/nonexistent.jpg")
        var matched = false
        do {
            _ = try UNNotificationAttachment(identifier: "i", url: url, options: nil)
        } catch UNError.attachmentInvalidURL {
            matched = true
        } catch {}
        #expect(matched)
    }
}
#endif
