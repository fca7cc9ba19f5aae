import Foundation
import RichPushDoctor
import XCTest

final class OpenStepParserTests: XCTestCase {
    let parser = OpenStepParser(fileName: "test.pbxproj")

    func parse(_ text: String) throws -> PlistValue {
        try parser.parse(text)
    }

    func error(_ text: String) -> PropertyListError? {
        do {
            _ = try parser.parse(text)
            return nil
        } catch let error as PropertyListError {
            return error
        } catch {
            XCTFail("not a PropertyListError: \(error)")
            return nil
        }
    }

    func testCommentsOfBothKindsAnywhereWhiteSpaceMayBe() throws {
        let value = try parse(
            """
            // !$*UTF8*$!
            { /* a */ key /* b */ = /* c */ value /* d */ ; // to the end of the line = x;
              list = ( /* e */ a /* f */ , // g
                       b, ) ; /* two */ /* in a row */
            }
            // after
            """)
        XCTAssertEqual(value, .dictionary(["key": .string("value"), "list": .array([.string("a"), .string("b")])]))
    }

    func testQuotedAndUnquotedStrings() throws {
        let value = try parse(#"{ a = Foo.swift; b = "with space"; c = 'single'; e = "<group>"; f = ""; g = 0x2A; h = ../a-b_c:d; d = "$(SRCROOT)/x"; }"#)
        XCTAssertEqual(value["a"], .string("Foo.swift"))
        XCTAssertEqual(value["b"], .string("with space"))
        XCTAssertEqual(value["c"], .string("single"))
        XCTAssertEqual(value["d"], .string("$(SRCROOT)/x"))
        XCTAssertNotNil(error("{ d = $(SRCROOT); }"), "$( is not an unquoted string: Xcode quotes it")
        XCTAssertEqual(value["e"], .string("<group>"), "<group> in quotes is a string, not data")
        XCTAssertEqual(value["f"], .string(""))
        XCTAssertEqual(value["g"], .string("0x2A"))
        XCTAssertEqual(value["h"], .string("../a-b_c:d"))
    }

    func testEscapesAsCoreFoundationReadsThem() throws {
        let value = try parse(
            #"{ a = "q\"q\\b\nn\tt\rr"; b = "\U00e9\U2603"; c = "\UD83D\UDE00"; d = "\101\102\12"; e = "\201"; f = "\a\b\f\v\z"; g = 'it\'s'; h = "\UD83Dx"; }"#
        )
        XCTAssertEqual(value["a"], .string("q\"q\\b\nn\tt\rr"))
        XCTAssertEqual(value["b"], .string("é☃"))
        XCTAssertEqual(value["c"], .string("😀"), "a \\U surrogate pair is one scalar")
        XCTAssertEqual(value["d"], .string("AB\n"), "octal escapes, 1 to 3 digits")
        XCTAssertEqual(value["e"], .string("\u{00C0}"), "octal 201 is NeXTSTEP 0x81, À")
        XCTAssertEqual(value["f"], .string("\u{07}\u{08}\u{0C}\u{0B}z"), "an unknown escape stands for its character")
        XCTAssertEqual(value["g"], .string("it's"))
        XCTAssertEqual(value["h"], .string("\u{FFFD}x"), "a lone surrogate becomes U+FFFD")
        XCTAssertEqual(try parse(#"{ k = "\\"; }"#)["k"], .string("\\"), "an escaped backslash before the closing quote")
    }

    func testNestedDictionariesArraysDataAndUnicode() throws {
        let value = try parse(
            """
            {
            \tobjects = {
            \t\tA1 = {isa = PBXGroup; children = (B2, C3, ); name = "日本語 ✓"; settings = {ATTRIBUTES = (RemoveHeadersOnCopy, ); }; };
            \t\tempty = { };
            \t\tnone = ( );
            \t};
            \tblob = <0fbd 7A
            00>;
            \t"quoted key" = 1;
            }
            """)
        let a1 = value["objects"]?["A1"]
        XCTAssertEqual(a1?["children"], .array([.string("B2"), .string("C3")]))
        XCTAssertEqual(a1?["name"], .string("日本語 ✓"))
        XCTAssertEqual(a1?["settings"]?["ATTRIBUTES"], .array([.string("RemoveHeadersOnCopy")]))
        XCTAssertEqual(value["objects"]?["empty"], .dictionary([:]))
        XCTAssertEqual(value["objects"]?["none"], .array([]))
        XCTAssertEqual(value["blob"], .data(Data([0x0F, 0xBD, 0x7A, 0x00])))
        XCTAssertEqual(value["quoted key"], .string("1"))
    }

    func testDuplicateKeyKeepsTheLastValue() throws {
        XCTAssertEqual(try parse("{ a = 1; a = 2; }")["a"], .string("2"))
    }

    func testErrorsNameTheFileAndLine() {
        let missingSemicolon = error("{\n  a = 1;\n  b = 2\n  c = 3;\n}")
        XCTAssertEqual(missingSemicolon?.line, 3)
        XCTAssertEqual(missingSemicolon?.file, "test.pbxproj")
        XCTAssertTrue(missingSemicolon?.message.contains("expected ';' after the value of \"b\"") ?? false, "\(String(describing: missingSemicolon))")
        XCTAssertEqual(missingSemicolon?.description.hasPrefix("test.pbxproj:3: "), true)

        XCTAssertEqual(error("{\n a = \"never\n closed;\n}")?.line, 2)
        XCTAssertEqual(error("{\n a = 1; /* never closed\n}")?.line, 2)
        XCTAssertEqual(error("{\n a = (1, 2\n")?.line, 2)
        XCTAssertEqual(error("{ a = 1; }\n}")?.line, 2, "trailing garbage")
        XCTAssertEqual(error("")?.message, "the file is empty: it holds no property list")
        XCTAssertNotNil(error("{ a = <0g>; }"))
        XCTAssertNotNil(error("{ a = <0f0>; }"), "odd number of hex digits")
        XCTAssertNotNil(error("{ a b = 1; }"))
        XCTAssertNotNil(error("{ = 1; }"))
        XCTAssertNotNil(error("{ a = ; }"))
        XCTAssertNotNil(error("( a b )"))
        XCTAssertNotNil(error("{ a = \"x\\"), "a lone backslash at the end")
    }

    func testDeepNestingIsAnErrorNotAStackOverflow() {
        let deep = String(repeating: "(", count: 100_000)
        XCTAssertEqual(error(deep)?.message, "containers nested deeper than \(OpenStepParser.maximumDepth) levels")
        let ok = String(repeating: "(", count: 200) + String(repeating: ")", count: 200)
        XCTAssertNil(error(ok))
    }

    func testFiveMegabyteProjectWithTwentyTargets() throws {
        let directory = try LargeProject.make(bytes: 5_000_000, targets: 20)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Large.xcodeproj").path
        let data = try Data(contentsOf: URL(fileURLWithPath: path + "/project.pbxproj"))
        XCTAssertGreaterThanOrEqual(data.count, 5_000_000)
        let project = try XcodeProject(path: path)
        XCTAssertEqual(project.targets.count, 20)
        XCTAssertGreaterThan(project.objects.count, 20_000)
        let report = Doctor.run(path: path)
        // The 17 module apps have no service extension; the app (App) is complete.
        XCTAssertEqual(report.findings.filter { $0.code == .nseMissing }.count, 17)
        XCTAssertFalse(report.findings.contains { $0.target == "App" && $0.severity == .error }, "\(report.lines)")
    }
}

/// Writes the generated large project (Tests/Fixtures/xcode/make_fixtures.py --large).
enum LargeProject {
    static func make(bytes: Int, targets: Int) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-large-\(UUID().uuidString)")
        let script = Fixture.directory.appendingPathComponent("make_fixtures.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--large", directory.path, "--targets", "\(targets)", "--bytes", "\(bytes)"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return directory
    }
}
