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
