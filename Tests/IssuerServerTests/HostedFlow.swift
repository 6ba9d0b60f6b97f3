import Foundation
import HTTPTypes
import HummingbirdTesting
import IssuerCore
import Testing
import TestSupport

/// The hosted Authorization Code flow (docs/reference.md, "Hosted sign-in") driven as a browser
/// would, against an in-process issuer with a faked Apple: the authorize request, Apple's
/// form post back, the code redeemed.
enum HostedFlow {
    /// The Services ID the hosted flow is configured with: the `aud` of Apple's tokens to it.
    static let servicesID = "com.example.web"
    static let redirectURI = "clanboards://oauthredirect"
    static let verifier = "verifier-" + String(repeating: "x", count: 50)

    /// `withIssuer` with the hosted flow configured (a Services ID).
    static func withFixture<Result>(
        _ environment: [String: String] = [:], clock: ManualClock = ManualClock(Date()),
        isolation: isolated (any Actor)? = #isolation, _ body: (IssuerTestFixture) async throws -> Result
    ) async throws -> Result {
        var environment = environment
        environment["ISSUER_APPLE_SERVICES_ID"] = environment["ISSUER_APPLE_SERVICES_ID"] ?? servicesID
        return try await withIssuer(environment: environment, clock: clock, body)
    }

    /// `/oauth2/authorize` with a PKCE S256 request of the default client; `overrides` replaces
    /// parameters, and a nil value leaves one out.
    static func authorizeQuery(_ overrides: [String: String?] = [:]) -> String {
        var parameters: [String: String?] = [
            "response_type": "code", "client_id": "clanboards-mobile", "redirect_uri": redirectURI,
            "scope": "openid email profile offline_access", "state": "client-state", "nonce": "client-nonce",
            "code_challenge": PKCE.challenge(forVerifier: verifier), "code_challenge_method": "S256",
        ]
        for (key, value) in overrides { parameters[key] = value }
        return "/oauth2/authorize?" + parameters.compactMap { key, value in
            value.map { "\(key)=\(RedirectURI.encode($0))" }
        }.sorted().joined(separator: "&")
    }

    /// The query parameters of a `Location`, by name (empty when there is none).
    static func query(_ location: String?) -> [String: String] {
        guard let location, let components = URLComponents(string: location) else { return [:] }
        return (components.queryItems ?? []).reduce(into: [:]) { $0[$1.name] = $1.value }
    }

    /// Authorize, then answer as Apple would: the sealed state and a token for `audience` with
    /// the nonce the issuer sent Apple.
    static func throughApple(
        _ client: any TestClientProtocol, _ fixture: IssuerTestFixture, subject: String = "001.hosted.\(UUID().uuidString.prefix(6))",
        audience: String = servicesID
    ) async throws -> (state: String, idToken: String) {
        let response = try await client.get(authorizeQuery())
        #expect(response.status == .found)
        let apple = query(response.headers[.location])
        let state = try #require(apple["state"])
        let nonce = try #require(apple["nonce"])
        let idToken = try fixture.apple.identityToken(subject: subject, audience: audience, overrides: ["nonce": nonce])
        return (state, idToken)
    }

    /// The whole hosted flow for `clientID` and `scope`: authorize, Apple's form post, the code
    /// redeemed; answers the token response.
    static func signIn(
        _ client: any TestClientProtocol, _ fixture: IssuerTestFixture, clientID: String, scope: String
    ) async throws -> [String: Any] {
        let authorize = try await client.get(authorizeQuery(["client_id": clientID, "scope": scope]))
        let apple = query(authorize.headers[.location])
        let idToken = try fixture.apple.identityToken(
            subject: "001.hosted.\(UUID().uuidString.prefix(6))", audience: servicesID, overrides: ["nonce": try #require(apple["nonce"])])
        let back = try await callback(client, [("state", try #require(apple["state"])), ("id_token", idToken)])
        let code = try #require(query(back.headers[.location])["code"])
        let tokens = try await client.postForm("/oauth2/token", [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("client_id", clientID), ("code_verifier", verifier),
        ])
        #expect(tokens.status == .ok)
        return tokens.json
    }

    /// Apple's form post to the callback.
    static func callback(_ client: any TestClientProtocol, _ fields: [(String, String)]) async throws -> TestResponse {
        try await client.postForm("/auth/apple/callback", fields)
    }
}
