import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import JOSE
import Testing
import TestSupport

@Suite("/userinfo (reference: UserInfo)")
struct UserInfoEndpointTests {
    @Test("userinfo answers the claims the scopes allow, by GET and POST", arguments: [
        ("openid", ["sub"]),
        ("openid email", ["sub", "email", "email_verified"]),
        ("openid email profile", ["sub", "email", "email_verified", "name", "given_name", "family_name"]),
    ])
    func claimsByScope(scope: String, claims: [String]) async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await client.postJSON("/auth/apple/exchange", [
                    "id_token": try fixture.apple.identityToken(subject: "u"), "scope": scope,
                    "name": ["given_name": "Ada", "family_name": "Lovelace"],
                ])
                let access = response.json["access_token"] as! String
                for method in [HTTPRequest.Method.get, .post] {
                    let info = try await UserInfoRequest.send(client, access, method: method)
                    #expect(info.status == .ok)
                    #expect(info.headers[.cacheControl] == "no-store")
                    #expect(Set(info.json.keys) == Set(claims))
                    let sub = try AccessTokenVerifier(configuration: fixture.configuration, clock: fixture.clock).verify(access, ring: try fixture.ring()).subject
                    #expect(info.json["sub"] as? String == sub)
                    if claims.contains("name") { #expect(info.json["name"] as? String == "Ada Lovelace") }
                    if claims.contains("email_verified") { #expect(info.json["email_verified"] as? Bool == true) }
                }
            }
        }
    }

    @Test("no credentials: 401 with a bare Bearer challenge; bad, expired, forged, revoked and ID tokens: invalid_token")
    func challenges() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let none = try await UserInfoRequest.send(client, nil)
                #expect(none.status == .unauthorized)
                #expect(none.headers[.wwwAuthenticate] == "Bearer")

                let tokens = try await NativeSignIn.tokens(client, fixture)
                let access = tokens["access_token"] as! String
                let ring = try fixture.ring()
                let payload = Base64URL.decode(access.split(separator: ".")[1])!
                let forged = try JWS.sign(
                    payload: payload, header: JWSHeader(alg: .rs256, typ: "at+jwt", kid: ring.active!.kid), key: try RSAPrivateKey.generate())
                let bad: [(String, String)] = [
                    ("garbage", "garbage"),
                    ("forged", forged),
                    ("ID token", tokens["id_token"] as! String),
                ]
                for (name, token) in bad {
                    let response = try await UserInfoRequest.send(client, token)
                    #expect(response.status == .unauthorized, "\(name)")
                    #expect(response.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#, "\(name)")
                }
                fixture.clock.advance(by: 3601)
                #expect(try await UserInfoRequest.send(client, access).headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#, "expired")
                fixture.clock.advance(by: -3601)
                _ = try await RevocationRequest.post(client, access)
                #expect(try await UserInfoRequest.send(client, access).headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#, "revoked")
            }
        }
    }
}
