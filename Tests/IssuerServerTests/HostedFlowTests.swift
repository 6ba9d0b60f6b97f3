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

/// SPEC §3.7 end to end in process: authorize → Apple (faked) → callback → code → tokens.
@Suite("Hosted Authorization Code flow (SPEC §3.7)")
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

    @Test("a code redeems once; a second redemption fails and revokes what the first issued")
    func codeReplay() async throws {
        try await Self.withFixture { fixture in
            try await fixture.test { client in
                let (state, idToken) = try await Self.throughApple(client, fixture)
                let callback = try await Self.callback(client, [("state", state), ("id_token", idToken)])
                let code = try #require(Self.query(callback.headers[.location])["code"])
                let redeem: [(String, String)] = [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.redirectURI),
                    ("client_id", "clanboards-mobile"), ("code_verifier", Self.verifier),
                ]
                let first = try await client.postForm("/oauth2/token", redeem)
                #expect(first.status == .ok)
                let refresh = try #require(first.json["refresh_token"] as? String)
                let second = try await client.postForm("/oauth2/token", redeem)
                #expect(second.status == .badRequest)
                #expect(second.json["error"] as? String == "invalid_grant")
                let afterReplay = try await client.postForm("/oauth2/token", [
                    ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "clanboards-mobile"),
                ])
                #expect(afterReplay.json["error"] as? String == "invalid_grant", "the first redemption's session is revoked")
            }
        }
    }

    @Test("a code refuses another verifier, client or redirect URI, and expires after 60 s", arguments: [
        "wrong verifier", "plain verifier", "other client", "other redirect", "expired", "missing verifier",
    ])
    func codeBindings(_ mistake: String) async throws {
        let clientsFile = try IssuerTestFixture.twoClientsFile()
        let clock = ManualClock(Date())
        try await Self.withFixture(["ISSUER_CLIENTS_FILE": clientsFile.path], clock: clock) { fixture in
            try await fixture.test { client in
                let authorize = try await client.get(Self.authorizeQuery(["redirect_uri": "clanboards://cb", "scope": "openid"]))
                let apple = Self.query(authorize.headers[.location])
                let idToken = try fixture.apple.identityToken(audience: Self.servicesID, overrides: ["nonce": try #require(apple["nonce"])])
                let callback = try await Self.callback(client, [("state", try #require(apple["state"])), ("id_token", idToken)])
                let code = try #require(Self.query(callback.headers[.location])["code"])
                var fields: [String: String] = [
                    "grant_type": "authorization_code", "code": code, "redirect_uri": "clanboards://cb",
                    "client_id": "clanboards-mobile", "code_verifier": Self.verifier,
                ]
                switch mistake {
                case "wrong verifier": fields["code_verifier"] = "another-" + String(repeating: "y", count: 50)
                case "plain verifier": fields["code_verifier"] = PKCE.challenge(forVerifier: Self.verifier)
                case "other client": fields["client_id"] = "other-app"
                case "other redirect": fields["redirect_uri"] = "other://cb"
                case "expired": clock.advance(by: 61)
                default: fields["code_verifier"] = nil
                }
                let response = try await client.postForm("/oauth2/token", fields.map { ($0.key, $0.value) })
                #expect(response.status == .badRequest)
                #expect(response.json["error"] as? String == (mistake == "missing verifier" ? "invalid_request" : "invalid_grant"))
                if mistake != "missing verifier" {
                    fields["code_verifier"] = Self.verifier
                    fields["client_id"] = "clanboards-mobile"
                    fields["redirect_uri"] = "clanboards://cb"
                    let retry = try await client.postForm("/oauth2/token", fields.map { ($0.key, $0.value) })
                    #expect(retry.json["error"] as? String == "invalid_grant", "a refused code is spent")
                }
            }
        }
    }

    @Test("authorize errors: a page before the redirect URI is trusted, a redirect with state after", arguments: [
        (["client_id": nil], nil),
        (["client_id": "nobody"], nil),
        (["redirect_uri": nil], nil),
        (["redirect_uri": "clanboards://elsewhere"], nil),
        (["redirect_uri": "clanboards://signout"], nil),
        (["response_type": nil], "invalid_request"),
        (["response_type": "token"], "unsupported_response_type"),
        (["code_challenge": nil], "invalid_request"),
        (["code_challenge_method": "plain"], "invalid_request"),
        (["code_challenge_method": nil], "invalid_request"),
        (["code_challenge": "short"], "invalid_request"),
        (["scope": "openid admin"], "invalid_scope"),
    ] as [([String: String?], String?)])
    func authorizeRefusals(_ overrides: [String: String?], _ error: String?) async throws {
        try await Self.withFixture { fixture in
            try await fixture.test { client in
                let response = try await client.get(Self.authorizeQuery(overrides))
                if let error {
                    #expect(response.status == .found)
                    let location = try #require(response.headers[.location])
                    #expect(location.hasPrefix(Self.redirectURI + "?"))
                    #expect(Self.query(location)["error"] == error)
                    #expect(Self.query(location)["state"] == "client-state")
                } else {
                    #expect(response.status == .badRequest)
                    #expect(response.headers[.location] == nil, "never redirected to an untrusted URI")
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    #expect(response.headers[.contentSecurityPolicy] == "default-src 'none'")
                    #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                    #expect(response.headers[.cacheControl] == "no-store")
                }
            }
        }
    }

    @Test("without ISSUER_APPLE_SERVICES_ID both steps answer a 503 page")
    func notConfigured() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let authorize = try await client.get(Self.authorizeQuery())
                #expect(authorize.status == .serviceUnavailable)
                #expect(String(buffer: authorize.body).contains("ISSUER_APPLE_SERVICES_ID"))
                let callback = try await Self.callback(client, [("state", "x")])
                #expect(callback.status == .serviceUnavailable)
            }
        }
    }

    @Test("callback refusals: tampered, expired and other-fleet states are pages; bundle-ID tokens and Apple's cancel are access_denied")
    func callbackRefusals() async throws {
        let clock = ManualClock(Date())
        try await Self.withFixture(clock: clock) { fixture in
            try await fixture.test { client in
                let (state, idToken) = try await Self.throughApple(client, fixture)
                var tampered = Array(state)
                tampered[tampered.count / 2] = tampered[tampered.count / 2] == "A" ? "B" : "A"
                let forged = try await Self.callback(client, [("state", String(tampered)), ("id_token", idToken)])
                #expect(forged.status == .badRequest)
                #expect(forged.headers[.location] == nil)

                let otherFleet = AuthorizationStateSealer(secret: ServerSecret(bytes: Array(repeating: 7, count: 32)), clock: clock)
                    .seal(AuthorizationState(
                        request: AuthorizationRequest(
                            clientID: "clanboards-mobile", redirectURI: Self.redirectURI, scopes: ["openid"], state: "s",
                            codeChallenge: PKCE.challenge(forVerifier: Self.verifier), nonce: nil),
                        now: clock.now))
                #expect(try await Self.callback(client, [("state", otherFleet), ("id_token", idToken)]).status == .badRequest)

                let cancelled = try await Self.callback(client, [("state", state), ("error", "user_cancelled_authorize")])
                #expect(cancelled.status == .found)
                #expect(Self.query(cancelled.headers[.location])["error"] == "access_denied")
                #expect(Self.query(cancelled.headers[.location])["state"] == "client-state")

                let (bundleState, bundleToken) = try await Self.throughApple(client, fixture, audience: IssuerTestFixture.bundleID)
                let wrongAudience = try await Self.callback(client, [("state", bundleState), ("id_token", bundleToken)])
                #expect(Self.query(wrongAudience.headers[.location])["error"] == "access_denied")

                let (otherState, otherToken) = try await Self.throughApple(client, fixture)
                let noNonce = try fixture.apple.identityToken(audience: Self.servicesID)
                let unbound = try await Self.callback(client, [("state", otherState), ("id_token", noNonce)])
                #expect(Self.query(unbound.headers[.location])["error"] == "access_denied", "Apple's nonce is required")

                clock.advance(by: 601)
                let expired = try await Self.callback(client, [("state", otherState), ("id_token", otherToken)])
                #expect(expired.status == .badRequest)
            }
            #expect(try await fixture.count("sessions") == 0)
        }
    }
}
