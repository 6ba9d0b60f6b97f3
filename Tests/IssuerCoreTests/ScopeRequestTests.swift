import IssuerCore
import Testing

/// RFC 6749 §3.3: scopes are space-delimited, granted only as far as the client allows, and an
/// unknown one is `invalid_scope`.
@Suite("Scope requests (RFC 6749 §3.3)")
struct ScopeRequestTests {
    static let client = OAuthClient(clientID: "app", redirectURIs: [], scopes: ["openid", "email", "profile", "offline"])
    static let narrow = OAuthClient(clientID: "narrow", redirectURIs: [], scopes: ["openid"])

    @Test("Granted", arguments: [
        (nil, client, ["openid", "email", "profile"]),
        (nil, narrow, ["openid"]),
        ("openid", client, ["openid"]),
        ("email openid", client, ["email", "openid"]),
        ("openid openid email openid", client, ["openid", "email"]),
        ("  openid   email ", client, ["openid", "email"]),
        ("offline", client, ["offline"]),
        // docs/reference.md: offline_access is accepted from every client, listed or not.
        ("openid offline_access", narrow, ["openid", "offline_access"]),
        ("offline_access", client, ["offline_access"]),
    ] as [(String?, OAuthClient, [String])])
    func granted(requested: String?, client: OAuthClient, expected: [String]) throws {
        #expect(try ScopeRequest.resolve(requested, for: client) == expected)
    }

    @Test("Refused as invalid_scope", arguments: [
        ("", client), (" ", client), ("admin", client), ("openid admin", client), ("OPENID", client),
        ("email", narrow), ("openid\temail", client), ("openid,email", client), ("openid\u{0}", client),
    ] as [(String, OAuthClient)])
    func refused(requested: String, client: OAuthClient) {
        #expect {
            try ScopeRequest.resolve(requested, for: client)
        } throws: { error in
            (error as? OAuthError)?.code == .invalidScope
        }
    }
}
