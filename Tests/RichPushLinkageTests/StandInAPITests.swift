#if os(Linux)
import Foundation
import RichPushTestSupport
import Testing

/// `UserNotificationsStandIn` and `IntentsStandIn` declare nothing iOS lacks: every public
/// declaration, conformance and superclass each has is in the list taken from Apple's headers
/// (`Tests/Fixtures/apple/UserNotifications-iOS16.4.api`, `Intents-iOS16.4.api`, made by
/// `scripts/apple-api-list.py`), with the same text: name, kind, access, isolation, `Sendable`,
/// convenience or designated initializer, `throws`, parameter types. So code that compiles
/// against the stand-ins on Linux compiles against UserNotifications and Intents on iOS.
@Suite("The stand-ins are strict subsets of Apple's UserNotifications and Intents")
struct StandInAPITests {
    static let appleList = Fixtures.testsDirectory.appendingPathComponent("Fixtures/apple/UserNotifications-iOS16.4.api")
    static let appleIntentsList = Fixtures.testsDirectory.appendingPathComponent("Fixtures/apple/Intents-iOS16.4.api")

    /// Where the stand-in may differ from the list, each for a reason that does not let Linux
    /// code use something iOS lacks.
    enum Allowance {
        /// Ignored in declarations: `override` (Swift requires it where Objective-C redeclares a
        /// property readwrite, as `UNMutableNotificationContent` does) and `@NSCopying` (a
        /// storage attribute; Swift allows it only on stored properties).
        static let ignoredWords = ["override ", "@NSCopying "]
        /// swift-corelibs-foundation's `_BridgedStoredNSError` adds `CustomStringConvertible` and
        /// `description` to every bridged error; Apple's Foundation does not (code must use
        /// `localizedDescription`, as the bridge does; ios-typecheck would catch `description`).
        static let linuxFoundation: Set<String> = [
            "conforms\tUNError\tCustomStringConvertible",
            "decl\tUNError.description\tswift.property\tpublic\tvar description: String { get }",
        ]
    }

    /// Lines of a `.api` list, without comments.
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// A `decl` line with the ignored words taken out of its declaration.
    static func normalized(_ line: String) -> String {
        var fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.first == "decl", fields.count == 5 else { return line }
        for word in Allowance.ignoredWords { fields[4] = fields[4].replacingOccurrences(of: word, with: "") }
        return fields.joined(separator: "\t")
    }

    /// The stand-in lines Apple's list does not allow, each with why.
    static func violations(standIn: [String], apple: [String]) -> [String] {
        let declared = Set(apple.map(normalized))
        let inherited = Set(apple.filter { $0.hasPrefix("inherited\t") }.map { String($0.split(separator: "\t")[1]) })
        let appleTopLevel = Set(apple.map { String($0.split(separator: "\t")[1].split(separator: ".")[0]) })
        var found: [String] = []
        for line in standIn where !Allowance.linuxFoundation.contains(line) {
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count >= 3 else { continue }
            let path = fields[1]
            if !appleTopLevel.contains(String(path.split(separator: ".")[0])) {
                found.append("not in Apple's UserNotifications (or not a symbol RichPush uses): \(line)")
            } else if declared.contains(normalized(line)) {
                continue
            } else if fields[0] == "decl", inherited.contains(path) {
                continue
            } else if fields[0] == "decl", apple.contains(where: { $0.hasPrefix("decl\t\(path)\t") }) {
                found.append(
                    "declared differently from Apple's: \(line)\n  Apple: \(apple.filter { $0.hasPrefix("decl\t\(path)\t") }.joined(separator: " | "))")
            } else {
                found.append("Apple has no such \(fields[0] == "decl" ? "declaration" : fields[0] == "conforms" ? "conformance" : "superclass"): \(line)")
            }
        }
        return found
    }

    /// A stand-in's public API, reduced from its symbol graph as Apple's list was.
    static func standInLines(_ module: String = "UserNotificationsStandIn") async throws -> [String] {
        let build = try await LibraryEvolutionBuild.shared()
        let run = try await ChildProcess(
            "python3", [Fixtures.supportDirectory.appendingPathComponent("symbol_api.py").path, build.symbolGraph(module).path]
        ).run(timeout: 60)
        guard run.status == 0 else { throw TestSupportError("symbol_api.py failed: \(run.stderr)") }
        return lines(run.stdout)
    }

    @Test func everyPublicDeclarationOfTheStandInIsApples() async throws {
        let apple = Self.lines(try String(contentsOf: Self.appleList, encoding: .utf8))
        let standIn = try await Self.standInLines()
        #expect(standIn.filter { $0.hasPrefix("decl\t") }.count > 100)
        let violations = Self.violations(standIn: standIn, apple: apple)
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }

    @Test func everyPublicDeclarationOfTheIntentsStandInIsApples() async throws {
        let apple = Self.lines(try String(contentsOf: Self.appleIntentsList, encoding: .utf8))
        let standIn = try await Self.standInLines("IntentsStandIn")
        #expect(standIn.filter { $0.hasPrefix("decl\t") }.count > 40)
        let violations = Self.violations(standIn: standIn, apple: apple)
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
        // What the bridge uses is there, as Apple declares it; an INImage from a URL is not.
        #expect(standIn.contains("decl\tINImage.init(imageData:)\tswift.init\tpublic\tconvenience init(imageData: Data)"))
        #expect(!standIn.contains { $0.hasPrefix("decl\tINImage.init(url:") || $0.hasPrefix("decl\tINImage.init(URL:") })
        #expect(standIn.contains("conforms\tINSendMessageIntent\tUNNotificationContentProviding"))
        #expect(standIn.contains { $0.hasPrefix("decl\tINIntent.setImage(_:forParameterNamed:)\t") })
        #expect(standIn.contains { $0.hasPrefix("decl\tINInteraction.donate()\t") && $0.hasSuffix("func donate() async throws") })
    }

    @Test func theIntentsCheckRefusesWhatIOSLacks() throws {
        let apple = Self.lines(try String(contentsOf: Self.appleIntentsList, encoding: .utf8))
        let extra = [
            "decl\tINPerson.init()\tswift.init\tpublic\tinit()",
            "decl\tINImage.init(data:)\tswift.init\tpublic\tinit(data: Data)",
            "conforms\tINPerson\tSendable",
            "decl\tINSendMessageIntent.init(recipients:outgoingMessageType:content:speakableGroupName:conversationIdentifier:serviceName:sender:)\tswift.init\tpublic\tinit(recipients: [INPerson]?, outgoingMessageType: INOutgoingMessageType, content: String?, speakableGroupName: INSpeakableString?, conversationIdentifier: String?, serviceName: String?, sender: INPerson?)",
            "decl\tINCommunicationHelper\tswift.struct\tpublic\tstruct INCommunicationHelper",
        ]
        #expect(Self.violations(standIn: extra, apple: apple).count == extra.count)
    }

    @Test func theStandInHasApplesTwelveErrorCodesAndTheInitializersApplesHas() async throws {
        let standIn = try await Self.standInLines()
        let cases = standIn.filter { $0.hasPrefix("decl\tUNError.Code.") && $0.contains("\tswift.enum.case\t") }
        #expect(cases.count == 12)
        // Convenience, as Apple's; no public initializer where Apple has none.
        #expect(
            standIn.contains {
                $0.hasPrefix("decl\tUNNotificationAttachment.init(identifier:url:options:)\t")
                    && $0.hasSuffix("public\tconvenience init(identifier: String, url URL: URL, options: [AnyHashable : Any]? = nil) throws")
            })
        #expect(!standIn.contains { $0.hasPrefix("decl\tUNNotificationTrigger.init") || $0.hasPrefix("decl\tUNPushNotificationTrigger.init") })
        #expect(!standIn.contains { $0.hasPrefix("conforms\tUNUserNotificationCenter\tSendable") })
        #expect(!standIn.contains { $0.hasPrefix("conforms\tUNNotificationActionOptions\tHashable") })
    }

    /// The check catches what the issue found in the old stand-in.
    @Test func theCheckRefusesWhatIOSLacks() throws {
        let apple = Self.lines(try String(contentsOf: Self.appleList, encoding: .utf8))
        let extra = [
            "decl\tUNError.init(_:message:)\tswift.init\tpublic\tinit(_ code: UNError.Code, message: String)",
            "decl\tUNUserNotificationCenter.categoriesAtDisplay()\tswift.method\tpublic\tfunc categoriesAtDisplay() -> Set<UNNotificationCategory>",
            "decl\tUNNotificationAttachment.init(identifier:url:options:)\tswift.init\tpublic\tinit(identifier: String, url URL: URL, options: [AnyHashable : Any]? = nil) throws",
            "conforms\tUNUserNotificationCenter\tSendable",
            "conforms\tUNNotificationCategoryOptions\tHashable",
            "decl\tUNNotificationTrigger.init(repeats:)\tswift.init\tpublic\tinit(repeats: Bool)",
            "decl\tUNRichPushHelper\tswift.struct\tpublic\tstruct UNRichPushHelper",
            "decl\tUNNotificationServiceExtension.didReceive(_:withContentHandler:)\tswift.method\topen\t@MainActor func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void)",
        ]
        #expect(Self.violations(standIn: extra, apple: apple).count == extra.count)
    }
}
#endif
