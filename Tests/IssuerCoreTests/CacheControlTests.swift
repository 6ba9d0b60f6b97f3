import IssuerCore
import Testing

/// RFC 9111 §5.2 / RFC 9110 §5.6.1: the parser is total, and what a provider sends only ever
/// shortens how long its keys are kept (docs/reference.md, "Faults and bad input").
@Suite("Cache-Control parsing (RFC 9111 §5.2)")
struct CacheControlTests {
    @Test("Freshness lifetime", arguments: [
        // The review's crash: an empty list element after the last directive.
        ("max-age=300, ", Optional(300)),
        (", max-age=300", 300), (",,, max-age=300 ,,", 300), ("max-age=300,", 300),
        ("", nil), (" ", nil), (",", nil), (", ,\t,", nil), ("=", nil), ("==,=", nil),
        ("public, max-age=3600", 3600), ("MAX-AGE=60", 60), ("Max-Age=60", 60),
        ("max-age=\"60\"", 60), ("max-age = 60", 60), ("\tmax-age=60\t", 60),
        // Duplicates: the first counts (RFC 9111 §4.2.1).
        ("max-age=60, max-age=7200", 60),
        // Invalid max-age: stale (0), raised to the cache's minimum; "max-age=" breaks the grammar and
        // is dropped (nil: the minimum too).
        ("max-age", 0), ("max-age=", nil), ("max-age=\"\"", 0), ("max-age=-5", 0), ("max-age=1.5", 0),
        ("max-age=60s", 0), ("max-age=+60", 0), ("max-age=\"6 0\"", 0), ("max-age=0", 0),
        // Overflow saturates at 2^31 (RFC 9111 §1.2.2).
        ("max-age=99999999999999999999", 2_147_483_648),
        ("max-age=" + String(repeating: "9", count: 10_000), 2_147_483_648),
        ("max-age=2147483647", 2_147_483_647),
        // The most restrictive directive wins.
        ("no-store", 0), ("no-cache", 0), ("public, max-age=3600, no-cache", 0), ("No-Store, max-age=60", 0),
        ("no-cache=\"set-cookie, x\", max-age=60", 0),
        // A comma inside a quoted string does not split the list.
        ("private=\"a, max-age=5\", max-age=60", 60),
        ("x=\"\\\"quoted\\\", max-age=5\", max-age=60", 60),
        // Garbage elements are dropped without taking their neighbours along.
        ("max-age=60 junk", nil), ("junk junk, max-age=60", 60), ("@@@, max-age=60", 60),
        ("max-age=\"60", nil), ("x=\"unterminated, max-age=60", nil), ("\"", nil), ("\\", nil),
        ("max-age=\"6\u{7}0\", max-age=70", 70), ("\u{0}, max-age=60", 60), ("ü=1, max-age=60", 60),
        ("s-maxage=60", nil), ("private", nil),
    ] as [(String, Int?)])
    func freshnessLifetime(header: String, lifetime: Int?) {
        #expect(CacheControl(header).freshnessLifetime == lifetime)
        #expect(JWKSDocument.maxAge(fromCacheControl: header) == lifetime)
    }

    @Test("Directives and arguments", arguments: [
        ("public, max-age=3600", [.init(name: "public"), .init(name: "max-age", argument: "3600")]),
        ("A=\"x\\\\y\\\"z\", , b", [.init(name: "a", argument: "x\\y\"z"), .init(name: "b")]),
        ("a=\"\", b=\"ü\"", [.init(name: "a", argument: ""), .init(name: "b", argument: "ü")]),
        ("bad value, ok", [.init(name: "ok")]),
    ] as [(String, [CacheControl.Directive])])
    func directives(header: String, expected: [CacheControl.Directive]) {
        #expect(CacheControl(header).directives == expected)
    }

    @Test("Serializing and parsing again gives the same directives", arguments: [
        "public, max-age=3600", "A=\"x\\\\y\\\"z\", , b", "a=\"\", b=\"ü \t\"", "no-cache=\"set-cookie, x\"",
        "max-age=300, ", "x=\"unterminated", "a=b c, d",
    ])
    func roundTrip(header: String) {
        let parsed = CacheControl(header)
        #expect(CacheControl(parsed.serialized) == parsed)
    }

    @Test("A missing header says nothing")
    func missingHeader() {
        #expect(JWKSDocument.maxAge(fromCacheControl: nil) == nil)
    }
}
