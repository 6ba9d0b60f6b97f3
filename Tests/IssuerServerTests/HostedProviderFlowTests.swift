import Foundation
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// The hosted flow through a provider other than Apple (reference: Hosted sign-in), against an
/// OpenID provider served over HTTP on loopback: the issuer as its confidential client with
/// PKCE, the sealed single-use state, and the same end as Apple's callback.
@Suite("Hosted sign-in through any provider", .timeLimit(.minutes(10)))
struct HostedProviderFlowTests {
    @Test("authorize → the provider (code + PKCE S256, nonce, state) → callback → the client's code → tokens; the provider's tokens are not kept")
    func wholeFlow() async throws {
        try await ProviderIssuer.withHostedOIDCProvider { fixture, provider, client in
            let authorize = try await client.get(HostedFlow.authorizeQuery())
            #expect(authorize.status == .found)
            let location = try #require(authorize.headers[.location])
            #expect(location.hasPrefix(provider.issuer + "/o/oauth2/v2/auth?"), "the only provider: straight there")
            let request = HostedFlow.query(location)
            #expect(request["response_type"] == "code")
            #expect(request["client_id"] == "issuer-at-corp")
            #expect(request["code_challenge_method"] == "S256")
            #expect(request["scope"] == "openid email")
            #expect(request["redirect_uri"] == fixture.configuration.issuerURL.absoluteString + "/auth/corp/callback")
            let state = try #require(request["state"])
            #expect(try #require(request["nonce"]).count == 64, "a fresh nonce, hashed")

            let code = provider.issueCode(subject: "corp-user-1", for: request)
            let back = try await client.get("/auth/corp/callback?code=\(RedirectURI.encode(code))&state=\(RedirectURI.encode(state))")
            #expect(back.status == .found)
            let answer = HostedFlow.query(back.headers[.location])
            #expect(answer["state"] == "client-state")
            #expect(answer["iss"] == fixture.configuration.issuerURL.absoluteString)
            let ours = try #require(answer["code"])
            let tokens = try await client.postForm("/oauth2/token", [
                ("grant_type", "authorization_code"), ("code", ours), ("redirect_uri", HostedFlow.redirectURI),
                ("client_id", "clanboards-mobile"), ("code_verifier", HostedFlow.verifier),
            ])
            #expect(tokens.status == .ok, "\(tokens.json)")
            #expect(try await ProviderIssuer.identity(fixture, tokens.json) == ("corp", "corp-user-1"))

            // The issuer's request to the provider: its secret and the PKCE verifier.
            let sent = try #require(provider.state.withLock { $0.tokenRequests.first })
            #expect(sent["client_secret"] == FakeGoogleServer.clientSecret)
            #expect(sent["code_verifier"].map(PKCE.isValidVerifier) == true)
            // Nothing the provider answered besides the ID token's claims is kept.
            let dump = try await AppleTestRig.dump(fixture.pool)
            #expect(!dump.contains("ya29.provider-access") && !dump.contains("1//provider-refresh"))

            #expect(MetricsExposition.signIns(fixture.metrics, provider: "corp", flow: "hosted", outcome: "success") == 1)
            // The state is single-use: a replay is the same page whatever it carries, and no code
            // of the provider is spent on it.
            for query in ["code=\(RedirectURI.encode(code))", "error=access_denied", ""] {
                let replay = try await client.get("/auth/corp/callback?\(query)&state=\(RedirectURI.encode(state))")
                #expect(replay.status == .badRequest, "\(query)")
                #expect(replay.headers[.location] == nil, "\(query)")
            }
            #expect(provider.state.withLock { $0.tokenRequests.count } == 1)
        }
    }

    @Test("the provider's ID token must carry the nonce the issuer sent and be issued to its client: else access_denied, nobody signed in",
          arguments: ["another nonce", "another audience"])
    func answerBoundToTheRequest(_ tampered: String) async throws {
        try await ProviderIssuer.withHostedOIDCProvider { fixture, provider, client in
            let request = HostedFlow.query(try await client.get(HostedFlow.authorizeQuery()).headers[.location])
            let state = try #require(request["state"])
            let code = tampered == "another nonce"
                ? provider.issueCode(subject: "corp-user-2", for: request, nonce: String(repeating: "0", count: 64))
                : provider.issueCode(subject: "corp-user-2", for: request, audience: "someone-else")
            let back = try await client.get("/auth/corp/callback?code=\(RedirectURI.encode(code))&state=\(RedirectURI.encode(state))")
            #expect(back.status == .found)
            #expect(HostedFlow.query(back.headers[.location])["error"] == "access_denied")
            #expect(HostedFlow.query(back.headers[.location])["code"] == nil)
            #expect(try await fixture.count("users") == 0)
            #expect(try await fixture.count("authorization_codes") == 0)
        }
    }

    @Test("the provider's error (the user cancelled) is access_denied at the client; a refused code too; a forged state is a page")
    func refusals() async throws {
        try await ProviderIssuer.withHostedOIDCProvider { fixture, provider, client in
            let request = HostedFlow.query(try await client.get(HostedFlow.authorizeQuery()).headers[.location])
            let state = try #require(request["state"])
            let cancelled = try await client.get("/auth/corp/callback?error=access_denied&state=\(RedirectURI.encode(state))")
            #expect(HostedFlow.query(cancelled.headers[.location])["error"] == "access_denied")
            let refused = try await client.get("/auth/corp/callback?code=not-issued&state=\(RedirectURI.encode(state))")
            #expect(HostedFlow.query(refused.headers[.location])["error"] == "access_denied")
            let forged = try await client.get("/auth/corp/callback?code=x&state=forged")
            #expect(forged.status == .badRequest)
            let unknown = try await client.get("/auth/other/callback?code=x&state=\(RedirectURI.encode(state))")
            #expect(unknown.status == .notFound)
            #expect(try await fixture.count("users") == 0)
            #expect(MetricsExposition.signIns(fixture.metrics, provider: "corp", flow: "hosted", outcome: "access_denied") == 2)
        }
    }

    @Test("with Apple and a provider: a chooser page whose links carry one state; provider= or idp_hint= goes straight there; an unknown one is refused to the client")
    func chooser() async throws {
        try await ProviderIssuer.withHostedOIDCProvider(withApple: true) { _, provider, client in
            let page = try await client.get(HostedFlow.authorizeQuery())
            #expect(page.status == .ok)
            #expect(page.headers[.contentSecurityPolicy] == "default-src 'none'")
            let html = String(buffer: page.body)
            #expect(html.contains("Continue with Apple") && html.contains("Continue with Corp"))
            #expect(!html.contains("<script"))
            let states = html.components(separatedBy: "state=").dropFirst().map { $0.prefix { $0 != "&" && $0 != "\"" } }
            #expect(states.count == 2 && Set(states).count == 1, "both links carry the same sealed state")

            let direct = try await client.get(HostedFlow.authorizeQuery(["provider": "corp"]))
            #expect(direct.headers[.location]?.hasPrefix(provider.issuer) == true)
            let hinted = try await client.get(HostedFlow.authorizeQuery(["idp_hint": "apple"]))
            #expect(hinted.headers[.location]?.hasPrefix("https://appleid.apple.com/") == true)
            let unknown = try await client.get(HostedFlow.authorizeQuery(["provider": "facebook"]))
            #expect(HostedFlow.query(unknown.headers[.location])["error"] == "invalid_request")
        }
    }
}
