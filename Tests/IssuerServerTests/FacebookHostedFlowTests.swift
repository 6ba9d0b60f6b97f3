import Foundation
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// The hosted flow through Facebook Login (reference: Facebook, "Hosted flow"), against Facebook
/// played over HTTP on loopback: the dialog with PKCE S256 and the sealed state, the code redeemed
/// with the app secret, the access token checked as a native app's is.
@Suite("Facebook: the hosted flow", .serialized, .timeLimit(.minutes(10)))
struct FacebookHostedFlowTests {
    @Test("authorize → Facebook's dialog (app id, callback, scope, S256) → callback → the client's code → tokens for (facebook, id); the same user as natively")
    func wholeFlow() async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, _ in
            let authorize = try await client.get(HostedFlow.authorizeQuery(["provider": "facebook"]))
            #expect(authorize.status == .found)
            let location = try #require(authorize.headers[.location])
            #expect(location.hasPrefix(facebook.base + "/dialog/oauth?"))
            let request = HostedFlow.query(location)
            #expect(request["client_id"] == FakeFacebookServer.appID)
            #expect(request["redirect_uri"] == fixture.configuration.issuerURL.absoluteString + "/auth/facebook/callback")
            #expect(request["response_type"] == "code")
            #expect(request["scope"] == "public_profile email")
            #expect(request["code_challenge_method"] == "S256")
            let state = try #require(request["state"])

            let code = facebook.issueCode(userID: "fb-web", for: request)
            let back = try await client.get("/auth/facebook/callback?code=\(RedirectURI.encode(code))&state=\(RedirectURI.encode(state))")
            #expect(back.status == .found)
            let answer = HostedFlow.query(back.headers[.location])
            #expect(answer["state"] == "client-state")
            let ours = try #require(answer["code"], "\(answer)")
            let tokens = try await client.postForm("/oauth2/token", [
                ("grant_type", "authorization_code"), ("code", ours), ("redirect_uri", HostedFlow.redirectURI),
                ("client_id", "clanboards-mobile"), ("code_verifier", HostedFlow.verifier),
            ])
            #expect(tokens.status == .ok, "\(tokens.json)")
            #expect(try await ProviderIssuer.identity(fixture, tokens.json) == ("facebook", "fb-web"))
            let sent = try #require(facebook.state.withLock { $0.tokenRequests.first })
            #expect(sent["client_secret"] == FakeFacebookServer.appSecret)
            #expect(sent["code_verifier"].map(PKCE.isValidVerifier) == true)
            // Its access token checked as a native app's is, and not kept.
            #expect(facebook.state.withLock { $0.debugTokenCalls } == 1)
            let native = try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: "fb-web")])
            #expect(try AppleTestRig.userID(fixture, native.json) == AppleTestRig.userID(fixture, tokens.json))
            #expect(MetricsExposition.signIns(fixture.metrics, provider: "facebook", flow: "hosted", outcome: "success") == 1)
        }
    }

    @Test("the person cancels at Facebook, or Facebook refuses the code: the client gets access_denied and nobody is signed in",
          arguments: ["cancelled", "refused code"])
    func refusals(_ kind: String) async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, _ in
            let request = HostedFlow.query(try await client.get(HostedFlow.authorizeQuery(["provider": "facebook"])).headers[.location])
            let state = try #require(request["state"])
            let query = kind == "cancelled"
                ? "error=access_denied&error_reason=user_denied&error_description=Permissions+error"
                : "code=never-issued"
            let back = try await client.get("/auth/facebook/callback?\(query)&state=\(RedirectURI.encode(state))")
            #expect(back.status == .found)
            #expect(HostedFlow.query(back.headers[.location])["error"] == "access_denied")
            #expect(HostedFlow.query(back.headers[.location])["code"] == nil)
            #expect(try await fixture.count("users") == 0)
        }
    }

    @Test("the sign-in page lists Facebook beside Apple, with Facebook's button, leading to its dialog")
    func chooserListsFacebook() async throws {
        try await FacebookExchangeTests.withFacebook(environment: ["ISSUER_APPLE_SERVICES_ID": HostedFlow.servicesID]) { _, facebook, client, _ in
            let page = try await client.get(HostedFlow.authorizeQuery())
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(html.contains("Continue with Facebook") && html.contains("Sign in with Apple"))
            #expect(html.contains("class=\"button facebook\""))
            // Each button goes straight to its provider, with a state sealed for it.
            let link = try #require(html.components(separatedBy: "href=\"").dropFirst()
                .map { String($0.prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&") }
                .first { $0.hasPrefix(facebook.base + "/dialog/oauth?") })
            #expect(HostedFlow.query(link)["client_id"] == FakeFacebookServer.appID)
        }
    }
}
