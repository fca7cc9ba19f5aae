import Foundation
import RichPushDoctor
import RichPushTestSupport
import XCTest

final class BuildSettingsTests: XCTestCase {
    func level(_ pairs: [(String, String)], origin: String = "test") -> [BuildSettingAssignment] {
        pairs.map { key, value in
            let (name, conditions) = BuildSettingAssignment.splitKey(key)
            return BuildSettingAssignment(name: name, conditions: conditions, value: value, origin: origin)
        }
    }

    func settings(_ levels: [[(String, String)]]) -> BuildSettings {
        BuildSettings(levels: levels.map { level($0) }, context: ["sdk": "iphoneos18.0", "config": "Release", "arch": "arm64"])
    }

    func testReferencesBothBracketStylesInheritedAndNesting() {
        let s = settings([
            [("TARGET_NAME", "My App"), ("PRODUCT_NAME", "$(TARGET_NAME)"), ("FLAGS", "-a")],
            [("FLAGS", "$(inherited) -b"), ("PREFIX", "com.example"), ("SUFFIX_Release", "prod")],
            [
                ("FLAGS", "${inherited} -c"), ("PRODUCT_BUNDLE_IDENTIFIER", "${PREFIX}.$(PRODUCT_NAME:rfc1034identifier).$(SUFFIX_$(CONFIGURATION))"),
                ("CONFIGURATION", "Release"),
            ],
        ])
        XCTAssertEqual(s.resolve("FLAGS"), .value("-a -b -c"))
        XCTAssertEqual(s.resolve("PRODUCT_BUNDLE_IDENTIFIER"), .value("com.example.My-App.prod"))
        XCTAssertEqual(s.expand("$$(literal)"), .value("$(literal)"))
    }

    func testBareDollarNamesAndSettingsSetOnlyElsewhere() {
        let s = BuildSettings(
            levels: [level([("ROOT", "au.com.example"), ("ID", "$ROOT.app"), ("X", "$1 $ cost"), ("Y[sdk=iphonesimulator*]", "sim")])],
            context: ["sdk": "iphoneos"], setElsewhere: ["BUNDLE_ID_SUFFIX"])
        XCTAssertEqual(s.resolve("ID"), .value("au.com.example.app"))
        XCTAssertEqual(s.resolve("X"), .value("$1 $ cost"), "a $ not before a name stays")
        // Set for Debug (or another target) only: Xcode expands it to nothing in Release.
        XCTAssertEqual(s.expand("a$(BUNDLE_ID_SUFFIX)"), .value("a"))
        XCTAssertEqual(s.expand("b$(Y)"), .value("b"), "set for the simulator only")
        XCTAssertEqual(s.expand("$(NEVER_SET)"), .unresolved(reason: "NEVER_SET is not set"))
    }

    func testModifiers() {
        let s = settings([[("NAME", "My App-2"), ("PATH_", "/a/b/File.swift"), ("EMPTY", ""), ("DIGIT", "9lives")]])
        XCTAssertEqual(s.expand("$(NAME:c99extidentifier)"), .value("My_App_2"))
        XCTAssertEqual(s.expand("$(DIGIT:identifier)"), .value("_9lives"))
        XCTAssertEqual(s.expand("$(NAME:lower:rfc1034identifier)"), .value("my-app-2"))
        XCTAssertEqual(s.expand("$(NAME:upper)"), .value("MY APP-2"))
        XCTAssertEqual(s.expand("$(PATH_:base)|$(PATH_:file)|$(PATH_:dir)|$(PATH_:suffix)"), .value("File|File.swift|/a/b|.swift"))
        XCTAssertEqual(s.expand("$(EMPTY:default=x)|$(UNSET:default=y)|$(NAME:default=z)"), .value("x|y|My App-2"))
        XCTAssertEqual(s.expand("$(NAME:frobnicate)"), .unresolved(reason: "the modifier :frobnicate is not one RichPush understands"))
    }

    func testUnresolvedIsSaidNotGuessed() {
        let s = settings([[("A", "$(B)"), ("B", "$(A)"), ("C", "x.$(NOT_SET)"), ("D", "$(open")]])
        XCTAssertEqual(s.resolve("C"), .unresolved(reason: "NOT_SET is not set"))
        guard case .unresolved(let reason) = s.resolve("A") else { return XCTFail("a cycle resolved") }
        XCTAssertTrue(reason.contains("refers to itself"), reason)
        guard case .unresolved = s.resolve("D") else { return XCTFail("an unclosed $( resolved") }
        XCTAssertEqual(s.resolve("E"), .unresolved(reason: "E is not set"))
    }

    func testConditionsPickTheMatchingMostSpecificValue() {
        let s = settings([
            [
                ("X", "base"), ("X[sdk=iphoneos*]", "device"), ("X[sdk=iphonesimulator*]", "simulator"), ("Y[config=Debug]", "debug"), ("Y", "any"),
                ("Z[sdk=iphoneos*][arch=arm64]", "both"),
            ]
        ])
        XCTAssertEqual(s.resolve("X"), .value("device"))
        XCTAssertEqual(s.resolve("Y"), .value("any"))
        XCTAssertEqual(s.resolve("Z"), .value("both"))
    }

    func testXCConfigIncludesCommentsAndProblems() throws {
        let work = try Fixtures.temporaryDirectory("richpush-xcconfig")
        defer { try? FileManager.default.removeItem(at: work) }
        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: work.appendingPathComponent(name))
        }
        try write("Base.xcconfig", "A = base // a comment\nURL = https:/$()/example.com\n")
        try write(
            "Main.xcconfig",
            "#include \"Base.xcconfig\"\n#include? \"Optional.xcconfig\"\nA = $(inherited) main;\nB[sdk=iphoneos*] = dev\n#include \"Missing.xcconfig\"\nnot a setting\n#include \"Main.xcconfig\"\n"
        )
        let file = XCConfigFile(path: work.appendingPathComponent("Main.xcconfig").path)
        XCTAssertEqual(file.assignments.map(\.name), ["A", "URL", "A", "B"])
        XCTAssertEqual(file.assignments.last?.conditions, ["sdk": "iphoneos*"])
        let main = work.appendingPathComponent("Main.xcconfig").path
        XCTAssertEqual(file.problems.map(\.line), [5, 6, 7])
        XCTAssertTrue(file.problems.allSatisfy { $0.file == main })
        XCTAssertTrue(file.problems[0].message.hasPrefix("#include \"\(work.path)/Missing.xcconfig\": no such file"), file.problems[0].message)
        XCTAssertTrue(file.problems[2].message.contains("include cycle"))
        let s = BuildSettings(levels: file.assignments.map { [$0] }, context: ["sdk": "iphoneos"])
        XCTAssertEqual(s.resolve("A"), .value("base main"))
        XCTAssertEqual(s.resolve("URL"), .value("https://example.com"))
        XCTAssertEqual(s.resolve("B"), .value("dev"))
    }

    func testBinaryAndXMLPlistsAndTheirErrors() throws {
        let binary = try PropertyListFile.read(Fixture.path("correct") + "/NotificationContent/Info.plist")
        XCTAssertEqual(binary["NSExtension"]?["NSExtensionPointIdentifier"], .string("com.apple.usernotifications.content-extension"))
        XCTAssertEqual(binary["NSExtension"]?["NSExtensionAttributes"]?["UNNotificationExtensionCategory"]?.strings, ["image", "video"])
        let xml = try PropertyListFile.read(Fixtures.packageRoot.appendingPathComponent("Examples/NotificationContentExtension/Info.plist").path)
        XCTAssertEqual(xml["NSExtension"]?["NSExtensionAttributes"]?["UNNotificationExtensionDefaultContentHidden"], .bool(false))
        XCTAssertEqual(xml["NSExtension"]?["NSExtensionAttributes"]?["UNNotificationExtensionInitialContentSizeRatio"], .real(0.75))
        let service = try PropertyListFile.read(Fixtures.packageRoot.appendingPathComponent("Examples/NotificationServiceExtension/Info.plist").path)
        XCTAssertEqual(service["RichPush"]?["ButtonCategorySlots"], .integer(4))
        XCTAssertEqual(service["NSAppTransportSecurity"]?["NSExceptionDomains"]?["media.example.com"]?["NSExceptionAllowsInsecureHTTPLoads"], .bool(true))

        let work = try Fixtures.temporaryDirectory("richpush-plist")
        defer { try? FileManager.default.removeItem(at: work) }
        let bad = work.appendingPathComponent("Info.plist")
        try Data("<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n<key>A</key>\n<strin>x</string>\n</dict>\n</plist>\n".utf8).write(to: bad)
        XCTAssertThrowsError(try PropertyListFile.read(bad.path)) { error in
            let e = error as? PropertyListError
            XCTAssertEqual(e?.file, bad.path)
            XCTAssertTrue(e?.message.hasPrefix("is not a valid XML property list") ?? false, "\(error)")
        }
        try Data("bplist00garbage".utf8).write(to: bad)
        XCTAssertThrowsError(try PropertyListFile.read(bad.path)) { error in
            XCTAssertTrue((error as? PropertyListError)?.message.hasPrefix("is not a valid binary property list") ?? false, "\(error)")
        }
        XCTAssertThrowsError(try PropertyListFile.read(work.appendingPathComponent("none.plist").path)) { error in
            XCTAssertEqual((error as? PropertyListError)?.message, "no such file")
        }
    }
}
