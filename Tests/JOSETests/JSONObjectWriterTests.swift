import Foundation
import JOSE
import Testing

/// `JSONObjectWriter` promises the bytes of `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` when members are written sorted: every scalar below U+7530 (every
/// control character and every escape among them) and samples beyond it up to U+10FFFF, every kind
/// of member, and nesting, compared with that encoder.
@Suite struct JSONObjectWriterTests {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private struct Sample: Encodable {
        var a: String?
        var b: Int?
        var c: Bool?
        var d: Nested?
        var e: String?

        struct Nested: Encodable { var x: String?; var y: Int? }

        func written() -> [UInt8] {
            var writer = JSONObjectWriter()
            writer.string("a", a)
            writer.integer("b", b)
            writer.boolean("c", c)
            writer.object("d", present: d != nil) {
                $0.string("x", d?.x)
                $0.integer("y", d?.y)
            }
            writer.string("e", e)
            return writer.finished()
        }
    }

    @Test func everyScalarBelowU7530IsWrittenAsTheEncoderDoes() throws {
        // Every ASCII byte (the escapes), then Latin, combining marks and beyond, one per string.
        for value in 0..<0x7530 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let sample = Sample(a: "<\(Character(scalar))>")
            #expect(sample.written() == Array(try Self.encoder.encode(sample)), "U+\(String(value, radix: 16))")
        }
    }

    @Test func membersOfEveryKindAndAbsentOnesMatchTheEncoder() throws {
        let strings: [String?] = [
            nil, "", "https://issuer.example/a/b?c=d", "quote\" back\\slash", "\u{0}\u{1f}\u{7f}", "line\nfeed\ttab\r\u{8}\u{c}",
            "é👩‍👩‍👧𝄞", "\u{2028}\u{2029}\u{feff}",
        ]
        let integers: [Int?] = [nil, 0, -1, 1_700_000_000, Int.max, Int.min]
        for (index, text) in strings.enumerated() {
            for integer in integers {
                for flag in [nil, true, false] as [Bool?] {
                    let nested = index % 2 == 0 ? nil : Sample.Nested(x: strings[(index + 3) % strings.count], y: integer)
                    let sample = Sample(a: text, b: integer, c: flag, d: nested, e: strings[(index + 1) % strings.count])
                    #expect(sample.written() == Array(try Self.encoder.encode(sample)))
                }
            }
        }
    }

    /// Beyond the exhaustive range: every 97th scalar up to U+10FFFF, the last of each plane and the
    /// ones next to the surrogates.
    @Test func scalarsBeyondTheExhaustiveRangeMatchTheEncoder() throws {
        let edges: [UInt32] = [0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1FFFF, 0x10FFFF]
        for value in Array(stride(from: UInt32(0x7530), through: 0x10FFFF, by: 97)) + edges {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let sample = Sample(a: "<\(Character(scalar))>")
            #expect(sample.written() == Array(try Self.encoder.encode(sample)), "U+\(String(value, radix: 16))")
        }
    }

    @Test func anEmptyObjectIsTwoBraces() {
        #expect(JSONObjectWriter().finished() == Array("{}".utf8))
        var writer = JSONObjectWriter()
        writer.object("o") { _ in }
        writer.string("s", nil)
        #expect(writer.finished() == Array(#"{"o":{}}"#.utf8))
    }

    @Test func aHeaderIsWrittenAsTheEncoderWritesIt() throws {
        for header in [JWSHeader(kid: "k1"), JWSHeader(typ: "at+jwt", kid: "a/b\"c"), JWSHeader(typ: nil, kid: nil)] {
            #expect(header.encodedJSON() == Array(try Self.encoder.encode(header)))
        }
    }
}
