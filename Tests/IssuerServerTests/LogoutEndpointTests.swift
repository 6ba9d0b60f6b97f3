import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import JOSE
import Testing
import TestSupport

/// docs/reference.md, "Sign-out": RP-Initiated Logout 1.0 at `/oauth2/logout`.
@Suite("GET/POST /oauth2/logout (reference: Sign-out)")
struct LogoutEndpointTests {
    /// Signs in natively; answers the ID token and the refresh token.
    static func signIn(_ client: any TestClientProtocol, _ fixture: IssuerTestFixture) async throws -> (idToken: String, refresh: String) {
        let response = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken()])
        return (try #require(response.json["id_token"] as? String), try #require(response.json["refresh_token"] as? String))
    }

    static func refreshWorks(_ client: any TestClientProtocol, _ refresh: String) async throws -> Bool {
        let response = try await client.postForm("/oauth2/token", [
            ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "clanboards-mobile"),
        ])
        return response.status == .ok
    }

    static func logout(_ client: any TestClientProtocol, _ parameters: [String: String]) async throws -> TestResponse {
        let query = parameters.map { "\($0.key)=\(RedirectURI.encode($0.value))" }.sorted().joined(separator: "&")
        return try await client.get("/oauth2/logout?" + query)
    }

    @Test("a valid hint revokes its session and redirects to the registered URI with state; POST works too")
    func validHint() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let (idToken, refresh) = try await Self.signIn(client, fixture)
                let response = try await Self.logout(client, [
                    "id_token_hint": idToken, "post_logout_redirect_uri": "clanboards://signout", "state": "s 1",
                ])
                #expect(response.status == .found)
                #expect(response.headers[.location] == "clanboards://signout?state=s%201")
                #expect(try await !Self.refreshWorks(client, refresh), "the session is revoked")

                let (second, secondRefresh) = try await Self.signIn(client, fixture)
                let posted = try await client.postForm("/oauth2/logout", [("id_token_hint", second), ("client_id", "clanboards-mobile")])
                #expect(posted.status == .ok)
                #expect(posted.headers[.contentType] == "text/html; charset=utf-8")
                #expect(posted.headers[.contentSecurityPolicy] == PagesTests.builtInPolicy)
                #expect(try await !Self.refreshWorks(client, secondRefresh))
            }
        }
    }

    @Test("an expired hint is still accepted (RP-Initiated Logout §2)")
    func expiredHint() async throws {
        let clock = ManualClock(Date())
        try await withIssuer(clock: clock) { fixture in
            try await fixture.test { client in
                let (idToken, refresh) = try await Self.signIn(client, fixture)
                clock.advance(by: 7200)
                let response = try await Self.logout(client, ["id_token_hint": idToken])
                #expect(response.status == .ok)
                #expect(try await !Self.refreshWorks(client, refresh))
            }
        }
    }

    @Test("refused with a 400 page and nothing revoked", arguments: [
        "forged hint", "access token as hint", "client mismatch", "unregistered URI", "login redirect URI as sign-out URI",
    ])
    func refusals(_ mistake: String) async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let (idToken, refresh) = try await Self.signIn(client, fixture)
                var parameters = ["id_token_hint": idToken]
                switch mistake {
                case "forged hint":
                    let parts = idToken.split(separator: ".")
                    let forged = try JWS.sign(
                        payload: try #require(Base64URL.decode(String(parts[1]))),
                        header: JWSHeader(typ: "JWT", kid: try JWS.parse(idToken, allowedAlgorithms: [.rs256]).header.kid),
                        key: try RSAPrivateKey.generate(bits: 2048))
                    parameters["id_token_hint"] = forged
                case "access token as hint":
                    let exchange = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken()])
                    parameters["id_token_hint"] = try #require(exchange.json["access_token"] as? String)
                case "client mismatch": parameters["client_id"] = "other-app"
                case "unregistered URI": parameters["post_logout_redirect_uri"] = "https://evil.example/"
                default: parameters["post_logout_redirect_uri"] = "clanboards://oauthredirect"
                }
                let response = try await Self.logout(client, parameters)
                #expect(response.status == .badRequest)
                #expect(response.headers[.location] == nil)
                #expect(try await Self.refreshWorks(client, refresh), "nothing revoked")
            }
        }
    }

    @Test("without a hint nothing is revoked: a plain page, or the registered URI named by client_id")
    func noHint() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let (_, refresh) = try await Self.signIn(client, fixture)
                let page = try await Self.logout(client, [:])
                #expect(page.status == .ok)
                #expect(String(buffer: page.body).contains("signed out"))
                let redirect = try await Self.logout(client, ["client_id": "clanboards-mobile", "post_logout_redirect_uri": "clanboards://signout"])
                #expect(redirect.status == .found)
                #expect(redirect.headers[.location] == "clanboards://signout")
                #expect(try await Self.refreshWorks(client, refresh))
            }
        }
    }
}
