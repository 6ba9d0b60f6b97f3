@testable import IssuerServer
import Testing

/// What is answered before NIO's HTTP/1 decoder, and what is left to it: a strict subset of
/// RFC 9112, so that nothing the decoder would read otherwise is answered here.
@Suite("Plain GET heads read before the decoder")
struct PlainGetHeadTests {
    static func head(_ text: String) -> PlainGetHead? {
        Array(text.utf8).withUnsafeBytes { PlainGetHead($0) }
    }

    @Test("a GET with one Host is read: its target, its length, its If-None-Match lines as one list, OWS trimmed")
    func plain() throws {
        let text = "GET /oauth2/jwks.json?x=1 HTTP/1.1\r\nHost: localhost\r\nIf-None-Match:  \"a\" \r\n"
            + "Accept: */*\r\nif-none-match:\t\"b\"\r\nConnection: Keep-Alive\r\n\r\n"
        let head = try #require(Self.head(text + "GET /next"))
        #expect(head.target == "/oauth2/jwks.json?x=1")
        #expect(head.ifNoneMatch == "\"a\", \"b\"")
        #expect(head.length == text.utf8.count, "up to the next request")
        let shouting = try #require(Self.head("GET /a HTTP/1.1\r\nHOST: x\r\nIF-NONE-MATCH: \"c\"\r\nCONNECTION: KEEP-ALIVE\r\n\r\n"))
        #expect(shouting.ifNoneMatch == "\"c\"", "field names and keep-alive are case-insensitive (RFC 9110 §5.1, §7.6.1)")
        let lookalikes = try #require(Self.head("GET /a HTTP/1.1\r\nHost2: y\r\nX-Host: z\r\nHost: x\r\nIf-None-Matches: \"d\"\r\n\r\n"))
        #expect(lookalikes.ifNoneMatch == nil, "a name that only starts or ends like a known one is another field")
        let bare = try #require(Self.head("GET / HTTP/1.1\r\nhost:\r\n\r\n"))
        #expect(bare.target == "/" && bare.ifNoneMatch == nil && bare.length == 25, "an empty Host is present (RFC 9112 §3.2)")
    }

    @Test("anything else is left to the decoder", arguments: [
        "GET /a HTTP/1.1\r\nHost: x\r\n",                                      // not complete yet
        "GET /a HTTP/1.1\r\n\r\n",                                              // no Host
        "GET /a HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",                         // two
        "GET /a HTTP/1.1\r\nHost: x, y\r\n\r\n",                                // a list
        "GET /a HTTP/1.0\r\nHost: x\r\n\r\n",
        "HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /a HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET http://x/a HTTP/1.1\r\nHost: x\r\n\r\n",                           // absolute-form
        "GET /a\"b HTTP/1.1\r\nHost: x\r\n\r\n",                                // not a path character
        "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, upgrade\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nProxy-Connection: close\r\n\r\n",        // NIO reads it as Connection
        "GET /a HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n",              // obs-fold
        "GET /a HTTP/1.1\nHost: x\n\n",                                         // bare LF
        "GET /a HTTP/1.1\r\nHost: x\rX: 1\r\n\r\n",                             // bare CR
        "GET /a HTTP/1.1\r\nHost : x\r\n\r\n",                                  // space before the colon
        "GET /a HTTP/1.1\r\nHost: x\r\nX-A: caf\u{e9}\r\n\r\n",                 // beyond ASCII
        "GET /a HTTP/1.1\r\nHost: x\r\nX-A: \u{7}\r\n\r\n",                     // a control byte
        "GET /a HTTP/1.1\r\nHost: x\r\n: empty name\r\n\r\n",
        // Names compared whatever their case, and only whole.
        "GET /a HTTP/1.1\r\nHOST: x\r\nhost: y\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nCONTENT-LENGTH: 0\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nTransfer-encoding: chunked\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nUPGRADE: h2c\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\neXpEcT: 100-continue\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nPROXY-CONNECTION: keep-alive\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nCONNECTION: CLOSE\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nConnection: keep_alive\r\n\r\n",      // '_' is not '-' in any case
        "GET /a HTTP/1.1\r\nHost: x\r\nConnection: keep-alives\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nHost2: y\r\nX-Host: z\r\nhOsT: w\r\n\r\n",
    ])
    func leftToTheDecoder(_ text: String) {
        #expect(Self.head(text) == nil)
    }

    @Test("more field lines than the limit are left to the decoder, whose own limit is higher")
    func tooManyLines() throws {
        func head(lines: Int) -> String { "GET /a HTTP/1.1\r\nHost: x\r\n" + String(repeating: "a:\r\n", count: lines - 1) + "\r\n" }
        #expect(Self.head(head(lines: PlainGetHead.maxFieldLines)) != nil)
        #expect(Self.head(head(lines: PlainGetHead.maxFieldLines + 1)) == nil)
    }

    @Test("a head longer than the limit is left to the decoder, whose limits apply")
    func tooLong() throws {
        let filler = "X-Filler: " + String(repeating: "a", count: 100) + "\r\n"
        let short = "GET /a HTTP/1.1\r\nHost: x\r\n" + String(repeating: filler, count: 30) + "\r\n"
        #expect(short.utf8.count < PlainGetHead.maxLength && Self.head(short) != nil)
        let long = "GET /a HTTP/1.1\r\nHost: x\r\n" + String(repeating: filler, count: 40) + "\r\n"
        #expect(long.utf8.count > PlainGetHead.maxLength && Self.head(long) == nil)
    }
}
