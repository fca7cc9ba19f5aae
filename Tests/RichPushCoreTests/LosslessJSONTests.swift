import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// JSON is carried faithfully: numbers as written, strings as their exact scalars, unpaired
/// surrogate escapes kept (issue 11).
@Suite struct LosslessJSONTests {
    /// Compact, keys sorted: what `jsonData()` writes, so parse → write is byte-exact.
    static let edgeCases =
        #"{"big":18446744073709551615,"bom":"\#u{FEFF}x\#u{FEFF}","decimal":0.1000,"exp":1E+2,"high":"a\ud800b","huge":1e400,"low":"\udc00","minus0":-0,"nested":[1.0,-12.50e-3,{"k":340282366920938463463374607431768211457}],"nfd":"e\#u{301}","pair":"😀","tiny":1e-400}"#

    @Test func parseThenWriteGivesTheSameBytes() throws {
        let data = Data(Self.edgeCases.utf8)
        let value = try RichPushJSONValue.parseStrictly(data)
        #expect(value.jsonData() == data)
        #expect(value.compactText() == Self.edgeCases)
        var buffer: [UInt8] = []
        value.write(into: &buffer)
        #expect(Data(buffer) == data)
        // And again: a second round trip changes nothing.
        #expect(try RichPushJSONValue.parse(value.jsonData()) == value)
    }

    @Test func numbersKeepTheirTextAndConvertExactlyOnRequest() throws {
        let value = try RichPushJSONValue.parse(Data(Self.edgeCases.utf8))
        let big = try #require(value["big"]?.numberValue)
        #expect(big.text == "18446744073709551615")
        #expect(big.uint64Value == UInt64.max)
        #expect(big.intValue == nil)
        #expect(value["huge"]?.numberValue?.text == "1e400")
        #expect(value["huge"]?.doubleValue == .infinity)
        #expect(value["huge"]?.intValue == nil)
        #expect(value["tiny"]?.doubleValue == 0)
        #expect(value["decimal"]?.numberValue?.text == "0.1000")
        #expect(value["decimal"]?.doubleValue == 0.1)
        #expect(value["exp"]?.intValue == 100)
        #expect(value["exp"]?.integerLiteralValue == nil)
        #expect(value["minus0"]?.intValue == 0)
        #expect(RichPushJSONNumber("120e-1")?.intValue == 12)
        #expect(RichPushJSONNumber("1.25e1")?.intValue == nil)
        #expect(RichPushJSONNumber("-9223372036854775808")?.intValue == Int.min)
        #expect(RichPushJSONNumber("9223372036854775808")?.intValue == nil)
        #expect(RichPushJSONNumber("9223372036854775808")?.uint64Value == 9_223_372_036_854_775_808)
        #expect(RichPushJSONNumber("18446744073709551616")?.uint64Value == nil)
        #expect(RichPushJSONNumber("1e999999999999")?.intValue == nil)
        #expect(RichPushJSONNumber("0e999999999999")?.intValue == 0)
        for bad in ["+1", "01", "1.", ".5", "1e", "NaN", "Infinity", " 1", "0x10", ""] {
            #expect(RichPushJSONNumber(bad) == nil, "\(bad)")
        }
        // `1` and `1.0` are different JSON: APNs' mutable-content needs the integer.
        #expect(RichPushJSONValue.int(1) != (try RichPushJSONValue.parse(Data("1.0".utf8))))
        #expect(RichPushJSONValue.int(1) == (try RichPushJSONValue.parse(Data("1".utf8))))
        #expect(RichPushJSONValue.double(.nan) == .null)
        #expect(RichPushJSONValue.double(0.5).compactText() == "0.5")
    }

    @Test func stringsKeepEveryScalarAndUnpairedSurrogates() throws {
        let value = try RichPushJSONValue.parse(Data(Self.edgeCases.utf8))
        #expect(value["bom"]?.stringValue?.unicodeScalars.first == "\u{FEFF}")
        #expect(value["bom"]?.stringValue?.unicodeScalars.count == 3)
        // Not normalized: e + U+0301 stays two scalars and is not equal to U+00E9.
        #expect(value["nfd"]?.stringValue?.unicodeScalars.count == 2)
        #expect(value["nfd"] != .string("\u{E9}"))
        let high = try #require(value["high"]?.jsonStringValue)
        #expect(high.hasUnpairedSurrogates)
        #expect(high.utf16CodeUnits == [0x61, 0xD800, 0x62])
        #expect(high.value == "a\u{FFFD}b")
        #expect(high != RichPushJSONString("a\u{FFFD}b"))
        #expect(value["low"]?.jsonStringValue?.utf16CodeUnits == [0xDC00])
        // An escaped pair is one scalar, and written back as UTF-8.
        let pair = try RichPushJSONValue.parse(Data(#""\ud83d\ude00""#.utf8))
        #expect(pair.stringValue == "😀")
        #expect(pair.compactText() == "\"😀\"")
        // An uppercase escape is the same code unit, and is written back as it was spelled.
        let upper = try RichPushJSONValue.parse(Data(#""\uD800 \u00e9\/""#.utf8))
        #expect(upper == .string(RichPushJSONString(utf16CodeUnits: [0xD800, 0x20, 0xE9, 0x2F])))
        #expect(upper.compactText() == #""\uD800 \u00e9\/""#)
        // Built in code, it is written with lower-case hex.
        #expect(RichPushJSONValue.string(RichPushJSONString(utf16CodeUnits: [0xDBFF, 0x41])).compactText() == #""\udbffA""#)
        // Control characters are escaped, nothing else is.
        #expect(RichPushJSONValue.string("a\"b\\c\n\u{1}/\u{2028}").compactText() == "\"a\\\"b\\\\c\\n\\u0001/\u{2028}\"")
    }

    @Test func keysThatCannotBeKeptAreRefusedNotChanged() throws {
        for (text, what) in [
            (#"{"\ud800":1}"#, "unpaired UTF-16 surrogate"),
            ("{\"\u{E9}\":1,\"e\u{301}\":2}", "differ only in Unicode normalization"),
        ] {
            for parse in [RichPushJSONValue.parse, RichPushJSONValue.parseStrictly] {
                do {
                    _ = try parse(Data(text.utf8))
                    Issue.record("accepted \(text)")
                } catch let error as RichPushError {
                    #expect(error.code == .invalidJSON)
                    #expect(error.message.contains(what), "\(error.message)")
                }
            }
        }
        // parse keeps the last of two identical keys; parseStrictly refuses them.
        #expect(try RichPushJSONValue.parse(Data(#"{"a":1,"a":2}"#.utf8))["a"] == .int(2))
        #expect(throws: RichPushError.self) { try RichPushJSONValue.parseStrictly(Data(#"{"a":1,"a":2}"#.utf8)) }
    }

    @Test func lintFixOutputAlwaysPassesLint() throws {
        let linter = RichPushPayloadLinter()
        var payloads = try Fixtures.payloadNames().map { try Fixtures.payload($0) }
        payloads += [
            #"{"aps":{"alert":{"title":"\ud83d","body":"\ufeffx"},"mutable-content":"1","badge":18446744073709551615},"image-url":"https://x.example/a.jpg","n":1e400,"d":0.1000}"#,
            #"{"mutable_content":true,"aps":"hi","attachment-url":"https://x.example/a.png","big":-18446744073709551616}"#,
            #"{"aps":{"alert":"a","content-available":1,"relevance-score":1e400}}"#,
            #"{"notification":{"title":"t","body":"b","mutable_content":true},"data":{"image-url":"https://x.example/i.png","n":"\udfff"}}"#,
        ].map { Data($0.utf8) }
        for data in payloads {
            let fixed = linter.fix(try RichPushJSONValue.parseStrictly(data))
            let written = fixed.jsonData()
            // The fixed bytes are strict JSON, parse back to the same value, and lint exactly as
            // the fixed value did: what --fix reported as remaining is what lint then reports.
            let reparsed = try RichPushJSONValue.parseStrictly(written)
            #expect(reparsed == fixed)
            #expect(linter.lint(written).map(\.code) == linter.lint(fixed).map(\.code))
            #expect(!linter.lint(written).contains { $0.code == .invalidPayload }, "\(String(decoding: written, as: UTF8.self))")
        }
    }

    @Test func foundationValuesConvertWithTheirExactNumbers() throws {
        let any: [String: Any] = ["u": UInt64.max, "i": Int64.min, "d": 0.1, "b": true, "s": "\u{FEFF}"]
        let value = try #require(RichPushJSONValue(any: any))
        #expect(value["u"]?.numberValue?.text == "18446744073709551615")
        #expect(value["i"]?.numberValue?.text == "-9223372036854775808")
        #expect(value["d"]?.numberValue?.text == "0.1")
        #expect(value["b"] == .bool(true))
        #expect(value["s"]?.stringValue == "\u{FEFF}")
        #expect(RichPushJSONValue(any: ["x": Double.infinity]) == nil)
    }
}
