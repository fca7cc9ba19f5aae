import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

@Suite("A shared container turns the depth features on")
struct SharedContainerTests {
    @Test func aContainerSetsTheCacheTheStateAndTheKeysTheAppWrote() throws {
        let container = try Fixtures.temporaryDirectory("richpush-group")
        defer { try? FileManager.default.removeItem(at: container) }
        var configuration = RichPushConfiguration()
        #expect(configuration.useSharedContainer(container).isEmpty)
        #expect(configuration.mediaCache?.directory.path.hasSuffix("Library/Caches/RichPush-media") == true)
        #expect(configuration.stateDirectory?.path.hasSuffix("Library/Application Support/RichPush") == true)
        #expect(configuration.keyProvider == nil)

        let keyFile = container.appendingPathComponent(RichPushConfiguration.SharedContainerLayout.keyFile)
        try FileManager.default.createDirectory(at: keyFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(#"{"k-2": "\#(EncryptedPayloadTests.key.base64EncodedString())"}"#.utf8).write(to: keyFile)
        #expect(configuration.useSharedContainer(container).isEmpty)
        #expect(configuration.keyProvider?.key(for: "k-2") == EncryptedPayloadTests.key)

        try Data("{}".utf8).write(to: keyFile)
        let problems = configuration.useSharedContainer(container)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("keys.json") == true)
    }
}
