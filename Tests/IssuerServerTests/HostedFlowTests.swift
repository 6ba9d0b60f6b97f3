import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import JOSE
import JWTKit
import Synchronization
import Testing
import TestSupport

/// docs/reference.md, "Hosted sign-in" end to end in process: authorize → Apple (faked) → callback → code → tokens.
@Suite("Hosted Authorization Code flow (reference: Hosted sign-in)")
struct HostedFlowTests {
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

    static func callback(_ client: any TestClientProtocol, _ fields: [(String, String)]) async throws -> TestResponse {
        try await client.postForm("/auth/apple/callback", fields)
    }

    @Test("authorize → Apple → callback → code → tokens → userinfo → refresh; one user across flows; the state opens at another process")
    func wholeFlow() async throws {
        try await Self.withFixture { fixture in
            try await fixture.withSharing { other in
                let subject = "001.same.person"
                // Carried from one in-process application to the next.
                let carried = Mutex<(state: String, appleIDToken: String, code: String)>(("", "", ""))
                try await fixture.test { client in
                    let response = try await client.get(Self.authorizeQuery())
                    #expect(response.status == .found)
                    #expect(response.headers[.cacheControl] == "no-store")
                    let location = try #require(response.headers[.location])
                    #expect(location.hasPrefix("https://appleid.apple.com/auth/authorize?"))
                    let apple = Self.query(location)
                    #expect(apple["response_type"] == "code id_token")
                    #expect(apple["response_mode"] == "form_post")
                    #expect(apple["scope"] == "name email")
                    #expect(apple["client_id"] == Self.servicesID)
                    #expect(apple["redirect_uri"] == "http://127.0.0.1:8080/auth/apple/callback")
                    let state = try #require(apple["state"])
                    #expect(!state.contains("client-state"), "the state is sealed, not readable")
                    let appleIDToken = try fixture.apple.identityToken(
                        subject: subject, audience: Self.servicesID, overrides: ["nonce": try #require(apple["nonce"])])
                    carried.withLock { $0.state = state; $0.appleIDToken = appleIDToken }
                }
                // Another process of the fleet opens the state (same server secret).
                try await other.test { client in
                    let (state, appleIDToken) = carried.withLock { ($0.state, $0.appleIDToken) }
                    let response = try await Self.callback(client, [
                        ("state", state), ("id_token", appleIDToken), ("code", "apple-one-time-code"),
                        ("user", #"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"a@privaterelay.appleid.com"}"#),
                    ])
                    #expect(response.status == .found)
                    let location = try #require(response.headers[.location])
                    #expect(location.hasPrefix(Self.redirectURI + "?"))
                    let back = Self.query(location)
                    #expect(back["state"] == "client-state")
                    let code = try #require(back["code"])
                    carried.withLock { $0.code = code }
                }
                try await fixture.test { client in
                    let code = carried.withLock { $0.code }
                    let tokens = try await client.postForm("/oauth2/token", [
                        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.redirectURI),
                        ("client_id", "clanboards-mobile"), ("code_verifier", Self.verifier),
                    ])
                    #expect(tokens.status == .ok)
                    #expect(tokens.headers[.cacheControl] == "no-store")
                    let json = tokens.json
                    #expect(json["scope"] as? String == "openid email profile offline_access")
                    let access = try #require(json["access_token"] as? String)
                    let idToken = try #require(json["id_token"] as? String)
                    let refresh = try #require(json["refresh_token"] as? String)

                    // jwt-kit, an independent implementation, verifies the ID token against our JWKS.
                    let jwks = try await client.get("/oauth2/jwks.json")
                    let keys = JWTKeyCollection()
                    try await keys.add(jwksJSON: String(buffer: jwks.body))
                    struct IDClaims: JWTPayload {
                        var sub: SubjectClaim
                        var aud: AudienceClaim
                        var nonce: String?
                        var at_hash: String
                        var given_name: String?
                        func verify(using algorithm: some JWTAlgorithm) async throws {}
                    }
                    let claims = try await keys.verify(idToken, as: IDClaims.self)
                    #expect(claims.nonce == "client-nonce")
                    #expect(claims.aud.value == ["clanboards-mobile"])
                    #expect(claims.at_hash == IDTokenClaims.accessTokenHash(of: access))
                    #expect(claims.given_name == "Ada")

                    let userinfo = try await client.get("/userinfo", headers: [.authorization: "Bearer \(access)"])
                    #expect(userinfo.status == .ok)
                    #expect(userinfo.json["sub"] as? String == claims.sub.value)

                    let refreshed = try await client.postForm("/oauth2/token", [
                        ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "clanboards-mobile"),
                    ])
                    #expect(refreshed.status == .ok)

                    // The same Apple account through the native exchange is the same user.
                    let native = try await client.postJSON("/auth/apple/exchange", [
                        "id_token": try fixture.apple.identityToken(subject: subject, audience: IssuerTestFixture.bundleID),
                    ])
                    let nativeAccess = try AccessTokenVerifier(configuration: fixture.configuration, clock: SystemClock())
                        .verify(try #require(native.json["access_token"] as? String), ring: try fixture.ring())
                    #expect(nativeAccess.subject == claims.sub.value)
                }
                #expect(try await fixture.count("users") == 1)
            }
        }
    }
}
