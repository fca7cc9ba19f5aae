#if os(Linux)
import Foundation
import RichPushTestSupport
import Testing

/// An app's own names beside `import RichPushNotificationService`: a framework the app shares with
/// its extension (or any other module it imports) declares `Receipt`, `Outcome`, `Result`, …, and
/// the extension's file uses them unqualified next to RichPush's API. Compiled against the
/// extension side's `.swiftinterface` files (as a binary framework's client sees them), so a
/// public name that RichPush's modules (or RichPushCore, which they re-export) add under one of
/// these names makes the app's code ambiguous, and this fails.
@Suite("An app's own names beside import RichPushNotificationService")
struct AppNameClashTests {
    /// Names an app's own modules plausibly declare: generic words (several are the names of
    /// RichPush's nested types, which must stay nested), Swift's `Result`, the names RichPush's
    /// types had before 0.11.0 (`Receipt`, `Outcome`, `ReasonCode`, `NotificationPayload`,
    /// `NotificationContent`), and those they had before 0.12.0: the public names left took the
    /// prefix (`PipelineConfiguration`, `JSONValue`, `MediaFormat`, …) and the plumbing left the
    /// public surface (`PipelineRun`, `SeenPushStore`, `HTTPFormPoster`, `CurlMediaTransport`, …).
    static let appNames = [
        "Receipt", "Outcome", "ReasonCode", "NotificationPayload", "NotificationContent", "Result", "Event", "Media", "Attachment",
        "Alert", "Code", "Severity", "Limits", "Status", "Setting", "Settings", "Configuration", "Payload", "Content", "Level", "Kind",
        "Format", "Access", "Problem", "Finding", "Report", "Queue", "Vendor", "Button", "Category", "Cache", "Badge", "Delivery",
        "Message", "Sender", "Conversation", "Avatar", "Logger",
        // 0.11.0's public names, prefixed or gone in 0.12.0.
        "PipelineConfiguration", "PipelineResult", "PipelineDetails", "PipelineRun", "NotificationPipeline", "JSONValue", "JSONNumber",
        "JSONString", "PayloadKeyPath", "PayloadLookup", "PushVendor", "MediaFormat", "MediaKind", "InterruptionLevel", "PushPayload",
        "PayloadLinter", "LintFinding", "ExtensionLookup", "FileProblem", "KeyProvider", "FileKeyProvider", "BadgeCounter",
        "BadgeOperation", "ReceiptDelivery", "ReceiptQueue", "ReceiptReport", "ReceiptSkipReason", "SeenPushStore", "HTTPFormPoster",
        "InstallIdentity", "CurlMediaTransport", "URLSessionMediaTransport", "MediaTransport", "MediaCache", "MediaFetcher",
        "FetchFailure", "DownloadedMedia", "MediaIntegrity", "ThumbnailOptions", "NotificationButton", "NotificationCategoryDescription",
        "NotificationLogger", "RetryPolicy", "DecryptedPayload", "PayloadCipher", "EncryptedEnvelope",
    ]

    /// The extension side's modules an app's extension sees through `import RichPushNotificationService`.
    static let modules = ["RichPushCore", "RichPushExtension", "RichPushNotificationService"]

    /// The top-level names each module declares in its public interface (its symbol graph as a
    /// binary framework's client sees it: SPI left out): types, protocols, typealiases, functions
    /// and variables; members and extensions of other modules' types are not top-level names.
    static func publicTopLevelNames() async throws -> [String: [String]] {
        let build = try await LibraryEvolutionBuild.shared()
        var names: [String: [String]] = [:]
        let kinds: Set<String> = [
            "swift.class", "swift.struct", "swift.enum", "swift.protocol", "swift.typealias", "swift.func", "swift.var", "swift.func.op",
        ]
        for module in modules {
            let data = try Data(contentsOf: build.symbolGraph(module))
            let graph = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let symbols = graph["symbols"] as? [[String: Any]] ?? []
            names[module] = symbols.compactMap { symbol in
                guard let path = symbol["pathComponents"] as? [String], path.count == 1,
                    let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String, kinds.contains(kind),
                    symbol["spi"] as? Bool != true, ["public", "open"].contains(symbol["accessLevel"] as? String ?? "")
                else { return nil }
                return path[0]
            }.sorted()
        }
        return names
    }

    /// The app's module: one struct per name.
    static var appModels: String {
        appNames.map { "public struct \($0): Sendable { public init() {}; public var app: String { \"AppModels.\($0)\" } }\n" }.joined()
    }

    /// The extension's file: the app's types by their plain names (as types, where a second
    /// declaration of the name is an error, not an overload to choose from), and RichPush's documented API
    /// (the subclass, `willDeliver`, the outcome, reason and content of a run, an `opened` receipt).
    static func extensionSource(importing richPush: String) -> String {
        """
        import AppModels
        import Foundation
        import \(richPush)
        import UserNotificationsStandIn

        \(appNames.map { "func describe(_ value: \($0) = \($0)()) -> String { value.app }" }.joined(separator: "\n"))

        final class NotificationService: RichPushServiceExtension {
            override func willDeliver(_ content: UNMutableNotificationContent, for request: UNNotificationRequest, result: RichPushResult) {
                let outcome: RichPushOutcome = result.outcome
                let reason: RichPushReasonCode? = result.reason
                let shown: RichPushNotificationContent = result.content
                if outcome == .mediaAttached, reason == nil { content.subtitle = shown.title + Receipt().app }
            }
        }

        func opened(_ pushID: String) -> RichPushReceipt { RichPushReceipt(pushID: pushID, event: .opened) }

        func configured(_ state: URL) -> RichPushConfiguration {
            var configuration = RichPushConfiguration()
            configuration.mediaKeyPaths = ["data.image"] + RichPushPayloadKeyPath.defaultMediaKeyPaths
            configuration.stateDirectory = state
            _ = RichPushReceiptDelivery(directory: state)
            _ = RichPushBadgeCounter(directory: state)
            return configuration
        }

        """
    }

    /// Compiles AppModels, then type-checks `source` as the extension's module against it and the
    /// extension side's interfaces (plus `extraModules`, each compiled from its source first).
    static func typecheck(_ source: String, extraModules: [String: String] = [:]) async throws -> LibraryEvolutionBuild.Step {
        let build = try await LibraryEvolutionBuild.shared()
        let folder = try Fixtures.temporaryDirectory("richpush-app-names")
        defer { try? FileManager.default.removeItem(at: folder) }
        let common =
            ["-swift-version", "6", "-parse-as-library", "-I", folder.path, "-I", build.directory.appendingPathComponent("interfaces").path]
            + LibraryEvolutionBuild.searchArguments(build.directory)
            + ["-module-cache-path", folder.appendingPathComponent("cache").path]
        for (name, text) in [("AppModels", appModels)] + extraModules.sorted(by: { $0.key < $1.key }) {
            let file = folder.appendingPathComponent("\(name).swift")
            try Data(text.utf8).write(to: file)
            let run = try await ChildProcess(
                "nice",
                ["-n", "10", "swiftc", "-emit-module", "-module-name", name, "-emit-module-path", folder.appendingPathComponent("\(name).swiftmodule").path]
                    + common + [file.path]
            ).run(timeout: 300)
            guard run.status == 0 else { throw TestSupportError("\(name) did not compile: \(run.stdout)\(run.stderr)") }
        }
        let file = folder.appendingPathComponent("NotificationService.swift")
        try Data(source.utf8).write(to: file)
        let run = try await ChildProcess("nice", ["-n", "10", "swiftc", "-typecheck", "-module-name", "NotificationServiceExtension"] + common + [file.path])
            .run(timeout: 300)
        return LibraryEvolutionBuild.Step(status: run.status, diagnostics: LibraryEvolutionBuild.diagnostics(run.stdout + run.stderr))
    }

    /// Every public name an app's extension sees is RichPush's own: prefixed, so it takes none of
    /// the app's (what it needs: `RichPushServiceExtension`, `RichPushConfiguration`,
    /// `RichPushResult`, …; the plumbing is behind the `RichPushInternal` SPI or internal).
    @Test func everyPublicNameTheExtensionSideDeclaresCarriesThePrefix() async throws {
        let names = try await Self.publicTopLevelNames()
        for module in Self.modules {
            let declared = try #require(names[module])
            #expect(!declared.isEmpty, "\(module) declares no public name: the symbol graph was not read")
            let unprefixed = declared.filter { !$0.hasPrefix("RichPush") }
            #expect(unprefixed.isEmpty, "\(module): \(unprefixed.joined(separator: ", "))")
            #expect(declared.allSatisfy { !Self.appNames.contains($0) })
        }
        // What an app needs is still there.
        for needed in ["RichPushConfiguration", "RichPushResult", "RichPushReceiptDelivery", "RichPushBadgeCounter", "RichPushSettings", "RichPushMessage"] {
            #expect(names.values.contains { $0.contains(needed) }, "\(needed)")
        }
        // The bridge's own, and (its graph includes what it re-exports) everything an app sees.
        let seen = Set(names["RichPushNotificationService"] ?? [])
        #expect(seen.isSuperset(of: ["RichPushCategoryRegistry", "RichPushCompanion", "RichPushServiceExtension"]))
        #expect(seen.isSuperset(of: Set((names["RichPushCore"] ?? []) + (names["RichPushExtension"] ?? []))))
    }

    @Test func theAppsOwnNamesAndRichPushsAPICompileSideBySide() async throws {
        let checked = try await Self.typecheck(Self.extensionSource(importing: "RichPushNotificationService"))
        #expect(checked.status == 0, "\(checked.diagnostics.joined(separator: "\n"))")
        #expect(checked.diagnostics.isEmpty, "\(checked.diagnostics.joined(separator: "\n"))")
    }

    /// The control: the same extension file against a module that adds 0.10.0's names
    /// (`Receipt`, `Outcome`) to what `import RichPushNotificationService` gives does not compile,
    /// so the check above can fail.
    @Test func richPushWithItsOldNamesClashesWithTheAppsTheTestWouldCatch() async throws {
        let oldNames = """
            @_exported import RichPushNotificationService
            public typealias Receipt = RichPushReceipt
            public typealias Outcome = RichPushOutcome

            """
        let checked = try await Self.typecheck(Self.extensionSource(importing: "ZeroTen"), extraModules: ["ZeroTen": oldNames])
        #expect(checked.status != 0)
        #expect(checked.diagnostics.contains { $0.contains("'Receipt' is ambiguous") }, "\(checked.diagnostics.joined(separator: "\n"))")
        #expect(checked.diagnostics.contains { $0.contains("'Outcome' is ambiguous") }, "\(checked.diagnostics.joined(separator: "\n"))")
    }
}
#endif
