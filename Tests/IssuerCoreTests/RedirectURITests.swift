import IssuerCore
import Testing

/// `RedirectURI.adding` works on the URI's bytes: a `#` or `?` followed by a combining mark is one
/// Swift `Character`, yet still the delimiter RFC 3986 §3 means (found by the RedirectURI fuzz
/// target).
@Suite struct RedirectURITests {
    @Test func fragmentAfterCombiningMarkStaysLast() {
        let uri = "app://cb#\u{310}"
        #expect(RedirectURI.adding([("code", "c1")], to: uri) == "app://cb?code=c1#\u{310}")
    }

    @Test func queryBeforeCombiningMarkIsContinued() {
        let uri = "app://cb?\u{310}"
        #expect(RedirectURI.adding([("state", "s")], to: uri) == "app://cb?\u{310}&state=s")
    }

    @Test func queryEndingInSeparatorGetsNoSecond() {
        #expect(RedirectURI.adding([("a", "1")], to: "https://x.example/cb?k=v&") == "https://x.example/cb?k=v&a=1")
        #expect(RedirectURI.adding([("a", "1")], to: "https://x.example/cb?") == "https://x.example/cb?a=1")
    }

    @Test func valuesAreEncoded() {
        #expect(RedirectURI.adding([("error_description", "a&b=c #é")], to: "https://x.example/cb")
            == "https://x.example/cb?error_description=a%26b%3Dc%20%23%C3%A9")
    }
}

/// `FormURLEncoding` splits on bytes too: `&` or `=` before a combining mark still delimits.
@Suite struct FormURLEncodingTests {
    @Test func delimitersBeforeCombiningMarks() throws {
        let pairs = try #require(FormURLEncoding.pairs("a=1&\u{301}b=2&c=\u{301}3"))
        #expect(pairs.map(\.name) == ["a", "\u{301}b", "c"])
        #expect(pairs.map(\.value) == ["1", "2", "\u{301}3"])
    }

    @Test func plusAndPercent() throws {
        let pairs = try #require(FormURLEncoding.pairs("q=a+b%2B%C3%A9&empty=&flag"))
        #expect(pairs.map(\.value) == ["a b+é", "", ""])
        #expect(FormURLEncoding.pairs("bad=%zz") == nil)
    }
}

/// The form decoder reads bytes. It decodes what Foundation's `removingPercentEncoding` (the
/// decoder it replaced) decodes, to the same text, and refuses what that refuses; where the
/// decoded bytes are not UTF-8 it always refuses, as docs/reference.md says ("Bodies"), where
/// Foundation refused some and put U+FFFD in place of others (a `state` came back changed).
@Suite struct FormURLEncodingDifferentialTests {
    @Test(arguments: ["%FF", "%C3", "a%C3%28", "%ED%A0%80", "%C0%AF", "%F0%9F%98", "%80a"])
    func percentEncodedBytesThatAreNotUTF8AreRefused(_ value: String) {
        #expect(FormURLEncoding.pairs("state=\(value)") == nil)
    }

    @Test func agreesWithFoundationOnGeneratedComponents() {
        let pieces = ["a", "Z", "9", "+", "%", "%2", "%2B", "%2b", "%zz", "%C3", "%A9", "%C3%A9", "%E2%82", "%AC", "%F0%9F%98%80",
                      "%FF", "%80", "%00", "%7F", "%C0%AF", "%ED%A0%80", "é", "~", "%25", "%g0", "%0G", " "]
        var generator = SplitMix64(seed: 0x5eed)
        var refused = 0
        for _ in 0..<20_000 {
            let count = Int(generator.next() % 6) + 1
            let component = (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            // No piece holds U+FFFD, so one in Foundation's text is its repair of bytes that are not UTF-8.
            let foundation = component.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
                .flatMap { $0.contains("\u{FFFD}") ? nil : $0 }
            let decoded = FormURLEncoding.pairs("n=\(component)")?.first?.value
            #expect(decoded == foundation, "\(component)")
            if foundation == nil { refused += 1 }
        }
        // Both kinds of input were generated.
        #expect(refused > 1_000 && refused < 19_000)
    }

    /// A small, seeded generator: the same components on every run.
    private struct SplitMix64 {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
