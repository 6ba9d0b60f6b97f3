import IssuerCore
import Testing

/// The one HTML escaping of the issuer's pages and the dev stand-ins' (docs/reference.md, "Hosted sign-in").
@Suite("HTML escaping")
struct HTMLEscapingTests {
    @Test("echoed text is escaped on pages: the five significant characters")
    func escaping() {
        #expect(HTMLEscaping.escape(#"<script>alert("x")</script>&'"#) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;")
        // A quote followed by a combining mark is one Character, and still escaped.
        #expect(HTMLEscaping.escape("\"\u{301}x") == "&quot;\u{301}x")
    }
}
