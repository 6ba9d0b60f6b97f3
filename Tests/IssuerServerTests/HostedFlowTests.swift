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
    @Test("authorize → Apple → callback → code → tokens → userinfo → refresh; one user across flows; the state opens at another process")
    func wholeFlow() async throws {
        try await HostedFlow.withFixture { fixture in
            try await fixture.withSharing { other in
                let subject = "001.same.person"
                // Carried from one in-process application to the next.
                let carried = Mutex<(state: String, appleIDToken: String, code: String)>(("", "", ""))
                try await fixture.test { client in
                    let response = try await client.get(HostedFlow.authorizeQuery())
                    #expect(response.status == .found)
                    #expect(response.headers[.cacheControl] == "no-store")
                    let location = try #require(response.headers[.location])
                    #expect(location.hasPrefix("https://appleid.apple.com/auth/authorize?"))
                    let apple = HostedFlow.query(location)
                    #expect(apple["response_type"] == "code id_token")
                    #expect(apple["response_mode"] == "form_post")
                    #expect(apple["scope"] == "name email")
                    #expect(apple["client_id"] == HostedFlow.servicesID)
                    #expect(apple["redirect_uri"] == "http://127.0.0.1:8080/auth/apple/callback")
                    let state = try #require(apple["state"])
                    #expect(!state.contains("client-state"), "the state is sealed, not readable")
                    let appleIDToken = try fixture.apple.identityToken(
                        subject: subject, audience: HostedFlow.servicesID, overrides: ["nonce": try #require(apple["nonce"])])
                    carried.withLock { $0.state = state; $0.appleIDToken = appleIDToken }
                }
                // Another process of the fleet opens the state (same server secret).
                try await other.test { client in
                    let (state, appleIDToken) = carried.withLock { ($0.state, $0.appleIDToken) }
                    let response = try await HostedFlow.callback(client, [
                        ("state", state), ("id_token", appleIDToken), ("code", "apple-one-time-code"),
                        ("user", #"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"a@privaterelay.appleid.com"}"#),
                    ])
                    #expect(response.status == .found)
                    let location = try #require(response.headers[.location])
                    #expect(location.hasPrefix(HostedFlow.redirectURI + "?"))
                    let back = HostedFlow.query(location)
                    #expect(back["state"] == "client-state")
                    let code = try #require(back["code"])
                    carried.withLock { $0.code = code }
                }
                try await fixture.test { client in
                    let code = carried.withLock { $0.code }
                    let tokens = try await client.postForm("/oauth2/token", [
                        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", HostedFlow.redirectURI),
                        ("client_id", "clanboards-mobile"), ("code_verifier", HostedFlow.verifier),
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
