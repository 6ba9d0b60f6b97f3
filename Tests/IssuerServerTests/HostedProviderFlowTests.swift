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

    @Test("with Apple and a provider: a chooser page whose links each carry a state sealed for their own provider; provider= or idp_hint= goes straight there; an unknown one is refused to the client")
    func chooser() async throws {
        try await ProviderIssuer.withHostedOIDCProvider(withApple: true) { _, provider, client in
            let page = try await client.get(HostedFlow.authorizeQuery())
            #expect(page.status == .ok)
            #expect(page.headers[.contentSecurityPolicy] == PagesTests.builtInPolicy)
            let html = String(buffer: page.body)
            // Apple's wording is its own guidelines' (docs/reference.md, "The pages people see").
            #expect(html.contains("Sign in with Apple") && html.contains("Continue with Corp"))
            #expect(!html.contains("<script"))
            let states = html.components(separatedBy: "state=").dropFirst().map { String($0.prefix { $0 != "&" && $0 != "\"" }) }
            #expect(states.count == 2 && Set(states).count == 2, "each link carries a state sealed for its own provider")

            let direct = try await client.get(HostedFlow.authorizeQuery(["provider": "corp"]))
            #expect(direct.headers[.location]?.hasPrefix(provider.issuer) == true)
            let hinted = try await client.get(HostedFlow.authorizeQuery(["idp_hint": "apple"]))
            #expect(hinted.headers[.location]?.hasPrefix("https://appleid.apple.com/") == true)
            let unknown = try await client.get(HostedFlow.authorizeQuery(["provider": "facebook"]))
            #expect(HostedFlow.query(unknown.headers[.location])["error"] == "invalid_request")
        }
    }

    @Test("the chooser's states share one single-use key: once one signed someone in, the other is a 400 page and its provider is sent nothing")
    func chooserStatesSpendTogether() async throws {
        try await ProviderIssuer.withHostedOIDCProvider(withApple: true) { fixture, provider, client in
            let html = String(buffer: try await client.get(HostedFlow.authorizeQuery()).body)
            let links = html.components(separatedBy: "href=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
                .map { $0.replacingOccurrences(of: "&amp;", with: "&") }
            let appleLink = try #require(links.first { $0.hasPrefix("https://appleid.apple.com/") })
            let corpLink = try #require(links.first { $0.hasPrefix(provider.issuer) })
            let apple = HostedFlow.query(appleLink)
            let idToken = try fixture.apple.identityToken(
                subject: "001.chooser", audience: HostedFlow.servicesID, overrides: ["nonce": try #require(apple["nonce"])])
            let signedIn = try await HostedFlow.callback(client, [("state", try #require(apple["state"])), ("id_token", idToken)])
            #expect(HostedFlow.query(signedIn.headers[.location])["code"] != nil, "the Apple link signs in")

            let corp = HostedFlow.query(corpLink)
            let code = provider.issueCode(subject: "corp-chooser", for: corp)
            let second = try await client.get("/auth/corp/callback?code=\(RedirectURI.encode(code))&state=\(RedirectURI.encode(try #require(corp["state"])))")
            #expect(second.status == .badRequest)
            #expect(second.headers[.location] == nil)
            #expect(provider.state.withLock { $0.tokenRequests.isEmpty })
            #expect(try await fixture.count("sessions") == 1)
        }
    }

    @Test("a state sealed for one provider, delivered at another's callback (an oidc provider's or Apple's): a 400 page, nothing sent to any token endpoint; at its own provider it still works")
    func stateBoundToItsProvider() async throws {
        try await Self.withGoogleAndCorp { fixture, google, corp, client in
            let authorize = try await client.get(HostedFlow.authorizeQuery(["provider": "google"]))
            let request = HostedFlow.query(authorize.headers[.location])
            #expect(authorize.headers[.location]?.hasPrefix(google.issuer + "/o/oauth2/v2/auth?") == true)
            let state = try #require(request["state"])
            let code = google.issueCode(subject: "g-user", for: request)

            let elsewhere = try await client.get("/auth/corp/callback?code=\(RedirectURI.encode(code))&state=\(RedirectURI.encode(state))")
            #expect(elsewhere.status == .badRequest)
            #expect(elsewhere.headers[.location] == nil, "nothing redirected to the client either")
            let atApple = try await HostedFlow.callback(client, [("state", state), ("code", code), ("id_token", "x.y.z")])
            #expect(atApple.status == .badRequest)
            #expect(atApple.headers[.location] == nil)
            #expect(corp.state.withLock { $0.tokenRequests.isEmpty }, "Google's code and the PKCE verifier never reach corp")
            #expect(google.state.withLock { $0.tokenRequests.isEmpty })

            // Refused without being spent: at Google's own callback the code is redeemed at Google.
            _ = try await client.get("/auth/google/callback?code=\(RedirectURI.encode(code))&state=\(RedirectURI.encode(state))")
            let sent = try #require(google.state.withLock { $0.tokenRequests.first })
            #expect(sent["code"] == code)
            #expect(sent["code_verifier"].map { PKCE.challenge(forVerifier: $0) } == request["code_challenge"])
            #expect(corp.state.withLock { $0.tokenRequests.isEmpty })
        }
    }

    @Test("RFC 9207: a provider whose discovery says authorization_response_iss_parameter_supported must send its issuer as iss, else a 400 page and nothing sent",
          arguments: ["missing", "another issuer", "its issuer"])
    func issParameterRequired(_ iss: String) async throws {
        try await ProviderIssuer.withHostedOIDCProvider { fixture, provider, client in
            provider.state.withLock { $0.issParameterSupported = true }
            let request = HostedFlow.query(try await client.get(HostedFlow.authorizeQuery()).headers[.location])
            let code = provider.issueCode(subject: "corp-iss", for: request)
            var query = "code=\(RedirectURI.encode(code))&state=\(RedirectURI.encode(try #require(request["state"])))"
            switch iss {
            case "missing": break
            case "another issuer": query += "&iss=\(RedirectURI.encode("https://attacker.example"))"
            default: query += "&iss=\(RedirectURI.encode(provider.issuer))"
            }
            let back = try await client.get("/auth/corp/callback?" + query)
            if iss == "its issuer" {
                #expect(back.status == .found)
                #expect(HostedFlow.query(back.headers[.location])["code"] != nil)
                #expect(provider.state.withLock { $0.tokenRequests.count } == 1)
            } else {
                #expect(back.status == .badRequest)
                #expect(back.headers[.location] == nil)
                #expect(provider.state.withLock { $0.tokenRequests.isEmpty })
                #expect(try await fixture.count("sessions") == 0)
            }
        }
    }

    @Test("RFC 9207 §2.4: an iss that is not the provider's is refused even where its discovery does not promise one; none is fine there")
    func issParameterCheckedWhenPresent() async throws {
        try await ProviderIssuer.withHostedOIDCProvider { _, provider, client in
            let request = HostedFlow.query(try await client.get(HostedFlow.authorizeQuery()).headers[.location])
            let code = provider.issueCode(subject: "corp-iss2", for: request)
            let state = RedirectURI.encode(try #require(request["state"]))
            let wrong = try await client.get("/auth/corp/callback?code=\(RedirectURI.encode(code))&state=\(state)&iss=\(RedirectURI.encode("https://attacker.example"))")
            #expect(wrong.status == .badRequest)
            #expect(provider.state.withLock { $0.tokenRequests.isEmpty })
            let plain = try await client.get("/auth/corp/callback?code=\(RedirectURI.encode(code))&state=\(state)")
            #expect(HostedFlow.query(plain.headers[.location])["code"] != nil)
        }
    }

    /// An issuer with Apple's hosted flow and two providers serving it, each played by a fake of
    /// its own: `google` (kind google, its endpoints at the first fake) and `corp` (kind oidc,
    /// found through the second fake's discovery document).
    static func withGoogleAndCorp(
        _ body: @escaping @Sendable (IssuerTestFixture, FakeGoogleServer, FakeGoogleServer, any TestClientProtocol) async throws -> Void
    ) async throws {
        let clock = ManualClock(Date())
        try await FakeGoogleServer.with(clock: clock) { google in
            try await FakeGoogleServer.with(clock: clock) { corp in
                let file = try FakeGoogleServer.providersFile([
                    [
                        "id": "google", "kind": "google", "client_id": FakeGoogleServer.webClientID, "client_secret": FakeGoogleServer.clientSecret,
                        "jwks_uri": google.jwksURI, "authorization_endpoint": google.issuer + "/o/oauth2/v2/auth",
                        "token_endpoint": google.issuer + "/token",
                    ],
                    ["id": "corp", "kind": "oidc", "issuer": corp.issuer, "client_id": "issuer-at-corp", "client_secret": FakeGoogleServer.clientSecret],
                ])
                defer { TestDirectories.remove(file) }
                let environment = ["ISSUER_PROVIDERS_FILE": file.path, "ISSUER_APPLE_SERVICES_ID": HostedFlow.servicesID]
                try await withIssuer(environment: environment, clock: clock) { fixture in
                    try await buildApplication(ProviderIssuer.overHTTP(fixture)).test(.router) { client in
                        try await body(fixture, google, corp, client)
                    }
                }
            }
        }
    }
}
