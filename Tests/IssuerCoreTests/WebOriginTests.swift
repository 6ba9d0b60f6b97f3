import Foundation
import IssuerCore
import Testing

/// docs/reference.md, "Browser clients": `allowed_origins` holds exact origins, as a browser
/// sends them in `Origin` (RFC 6454 §6.2); anything else stops the server at start.
@Suite("Allowed origins of browser clients (reference: Browser clients)")
struct WebOriginTests {
    @Test("exact origins are accepted: https anywhere, http to loopback, with or without a port", arguments: [
        "https://app.example.com", "https://app.example.com:8443", "https://xn--bcher-kva.example",
        "http://localhost:19006", "http://127.0.0.1:3000", "http://[::1]:8080", "http://localhost",
    ])
    func accepted(origin: String) {
        #expect(WebOrigin.problem(in: origin) == nil)
    }

    @Test("anything that is not an exact origin is refused, saying why", arguments: [
        ("https://app.example.com/", "path"),
        ("https://app.example.com/spa", "path"),
        ("https://app.example.com?x=1", "query"),
        ("https://app.example.com#top", "fragment"),
        ("https://user@app.example.com", "user"),
        ("http://app.example.com", "loopback"),
        ("http://10.0.0.1:8080", "loopback"),
        ("ftp://app.example.com", "scheme"),
        ("app.example.com", "not an origin"),
        ("null", "not an origin"),
        ("*", "not an origin"),
        ("", "not an origin"),
        ("https://App.Example.com", "'https://app.example.com'"),
        ("HTTPS://app.example.com", "'https://app.example.com'"),
        ("https://app.example.com:443", "'https://app.example.com'"),
        ("http://localhost:80", "'http://localhost'"),
        ("https://app.example.com:", "'https://app.example.com'"),
        ("https://bücher.example", "ASCII"),
        ("https://app.example.com:70000", "65535"),
    ])
    func refused(origin: String, mention: String) {
        let problem = WebOrigin.problem(in: origin)
        #expect(problem?.contains(mention) == true, "\(origin): \(problem ?? "accepted")")
    }

    @Test("a client's allowed_origins are read; the registry answers every client's together")
    func registry() throws {
        let registry = try ClientsFile.load(#"""
            [{"client_id": "spa", "redirect_uris": ["https://app.example.com/cb"], "scopes": ["openid"],
              "allowed_origins": ["https://app.example.com", "http://localhost:5173"]},
             {"client_id": "expo", "redirect_uris": ["com.example.app:/cb"], "scopes": ["openid"], "allowed_origins": ["https://app.example.com"]},
             {"client_id": "ios", "redirect_uris": ["com.example.app:/cb2"], "scopes": ["openid"]}]
            """#)
        #expect(registry.client(id: "spa")?.allowedOrigins == ["https://app.example.com", "http://localhost:5173"])
        #expect(registry.client(id: "ios")?.allowedOrigins == [])
        #expect(registry.allowedOrigins == ["https://app.example.com", "http://localhost:5173"])
        #expect(ClientRegistry.default.allowedOrigins.isEmpty)
    }

    @Test("a bad allowed origin, or a member of the wrong type, stops the registry naming the client and the origin", arguments: [
        (#"[{"client_id": "spa", "redirect_uris": ["x:/cb"], "scopes": ["openid"], "allowed_origins": ["https://app.example.com/"]}]"#,
         "client 'spa' has the allowed origin 'https://app.example.com/'"),
        (#"[{"client_id": "spa", "redirect_uris": ["x:/cb"], "scopes": ["openid"], "allowed_origins": "https://app.example.com"}]"#,
         "allowed_origins"),
        (#"[{"client_id": "spa", "redirect_uris": ["x:/cb"], "scopes": ["openid"], "allowed_origins": ["http://app.example.com"]}]"#,
         "loopback"),
    ])
    func registryRefuses(json: String, mention: String) throws {
        #expect { try ClientsFile.load(json) } throws: { "\($0)".contains(mention) }
    }
}
