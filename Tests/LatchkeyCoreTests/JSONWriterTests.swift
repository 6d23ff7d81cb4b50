import Foundation
import Testing
@testable import LatchkeyCore

/// JSONWriter replaced JSONEncoder on the hot paths; it must write the same bytes, or tokens and answers change.
@Suite struct JSONWriterTests {
    private static func encoder(_ value: JSONValue) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    @Test func writesWhatJSONEncoderWrites() throws {
        let strings = ["", "plain", "quote \" backslash \\ slash /", "tab\tnewline\nreturn\rbell\u{7}nul\u{0}us\u{1f}",
                       "\u{8}\u{c}", "del \u{7f} é ☃ 𝄞 \u{2028}", "<script>&amp;</script>"]
        let doubles = [0.0, -0.0, 1.0, -1.5, 0.1, 1e21, 1e-7, 123456789.125, 2.5e300, 4503599627370496.0]
        var values: [JSONValue] = strings.map { .string($0) } + doubles.map { .double($0) }
        values += [.int(0), .int(-42), .int(Int.max), .int(Int.min), .bool(true), .bool(false), .null, .array([]), .object([:])]
        values.append(.object(["b": .int(1), "a": .int(2), "B": .int(3), "a10": .int(4), "a9": .int(5), "é": .int(6), "_": .int(7), "": .null]))
        values.append(.object(["nested": .array([.object(["z": .array([.null, .bool(true)]), "y": .string("/")]), .double(2.5)])]))
        for value in values {
            #expect(JSONWriter.bytes(value) == (try Self.encoder(value)), "\(value)")
        }
    }

    @Test func randomDocumentsMatch() throws {
        var generator = SystemRandomNumberGenerator()
        func random(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &generator) {
            case 0: return .string(String((0..<Int.random(in: 0..<12)).map { _ in Character(Unicode.Scalar(UInt8.random(in: 0...0x7f))) }))
            case 1: return .int(Int.random(in: -1_000_000...1_000_000))
            case 2: return .double(Double.random(in: -1e6...1e6))
            case 3: return .bool(Bool.random())
            case 4: return .null
            case 5: return .array((0..<Int.random(in: 0..<4)).map { _ in random(depth + 1) })
            default: return .object(Dictionary((0..<Int.random(in: 0..<4)).map { i in ("k\(i)\(Int.random(in: 0..<99))", random(depth + 1)) },
                                               uniquingKeysWith: { a, _ in a }))
            }
        }
        for _ in 0..<500 {
            let value = random(0)
            #expect(JSONWriter.bytes(value) == (try Self.encoder(value)), "\(value)")
        }
    }
}
