import Foundation
import JOSE
import Testing

@Suite struct Base64URLTests {
    @Test func roundTripsEveryLengthAndByteValue() throws {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
        for length in 0...bytes.count {
            let slice = Array(bytes.prefix(length))
            let encoded = Base64URL.encode(slice)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Base64URL.decode(encoded).map(Array.init) == slice)
        }
    }

    @Test func usesTheURLSafeAlphabet() {
        // 0xFB 0xFF encodes to "+/8" in standard base64 (RFC 4648 §4).
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8").map(Array.init) == [0xFB, 0xFF])
    }

    @Test(arguments: ["QQ==", "QQ=", "+/8", "a b", "QQ\n", "ab.c", "A", "AAAAA", "QR", "QUF"])
    func rejectsNonCanonicalInput(_ input: String) {
        #expect(Base64URL.decode(input) == nil)
    }

    @Test func acceptsEmptyInput() {
        #expect(Base64URL.decode("") == Data())
    }
}

@Suite struct Base64URLSliceTests {
    /// The JWS parser hands in slices of a larger array; a slice's indices do not start at zero.
    @Test func decodesASliceInTheMiddleOfItsArray() {
        let token = Array("eyJh.QUJD.-_8".utf8)
        let segments = token.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        #expect(Base64URL.decode(utf8: segments[1]).map(Array.init) == Array("ABC".utf8))
        #expect(Base64URL.decode(utf8: segments[2]).map(Array.init) == [0xFB, 0xFF])
    }

    /// A collection without contiguous storage decodes as its array would.
    @Test func decodesACollectionWithoutContiguousStorage() {
        let reversed = Array("QUJDRA".utf8).reversed().reversed()
        #expect(Base64URL.decode(utf8: reversed).map(Array.init) == Array("ABCD".utf8))
        #expect(Base64URL.decode(utf8: Array("QR".utf8).reversed().reversed()) == nil)
    }
}

/// The encoder writes the alphabet itself; Foundation's base64 (RFC 4648 §4), translated to the
/// URL-safe alphabet and unpadded (§5), is the independent answer for every length and byte.
@Suite struct Base64URLFoundationTests {
    @Test func encodesAsFoundationDoesAfterTranslation() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) }
        for length in 0...bytes.count {
            let slice = Array(bytes.prefix(length))
            let foundation = Data(slice).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(slice) == foundation, "length \(length)")
            #expect(Base64URL.encode(Data(slice)) == foundation, "length \(length) as Data")
            #expect(Base64URL.encode(slice[...]) == foundation, "length \(length) as a slice")
        }
    }
}
