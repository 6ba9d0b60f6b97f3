import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import JOSE
import JWTKit
import Testing
import TestSupport

@Suite("JWKS (reference: JWKS)")
struct JWKSEndpointTests {
    @Test("JWKS: the active and next public keys, kid = RFC 7638 thumbprint, headers, ETag and 304")
    func jwks() async throws {
        try await withIssuer { fixture in
            let ring = try fixture.ring()
            try await fixture.test { client in
                let response = try await client.get("/oauth2/jwks.json")
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.cacheControl] == "public, max-age=300, stale-while-revalidate=60, stale-if-error=86400")
                #expect(response.headers[.accessControlAllowOrigin] == "*")
                let etag = try #require(response.headers[.eTag])
                #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
                let keys = try #require(response.json["keys"] as? [[String: Any]])
                #expect(keys.count == 2)
                #expect(Set(keys.compactMap { $0["kid"] as? String }) == Set([ring.active!.kid, ring.next!.kid]))
                for key in keys {
                    #expect(Set(key.keys) == ["kty", "use", "alg", "kid", "n", "e"], "never a private member")
                    let jwk = JOSE.JWK(kty: "RSA", kid: key["kid"] as? String, n: key["n"] as? String, e: key["e"] as? String)
                    #expect(try RSAPublicKey(jwk: jwk).thumbprint == key["kid"] as? String)
                }
                let notModified = try await client.get("/oauth2/jwks.json", headers: [.ifNoneMatch: etag])
                #expect(notModified.status == .notModified)
                #expect(notModified.body.readableBytes == 0)
                let changed = try await client.get("/oauth2/jwks.json", headers: [.ifNoneMatch: "\"other\""])
                #expect(changed.status == .ok)
            }
        }
    }

    @Test("every token we mint verifies with jwt-kit against our published JWKS")
    func jwtKitInterop() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let jwks = try await client.get("/oauth2/jwks.json")
                let response = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken()])
                let keys = JWTKeyCollection()
                try await keys.add(jwksJSON: String(buffer: jwks.body))
                struct Claims: JWTPayload {
                    var iss: IssuerClaim
                    var sub: SubjectClaim
                    var aud: AudienceClaim
                    var exp: ExpirationClaim
                    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
                }
                let access = try await keys.verify(response.json["access_token"] as! String, as: Claims.self)
                #expect(access.iss.value == "http://127.0.0.1:8080")
                #expect(access.aud.value == ["clanboards-mobile"])
                let id = try await keys.verify(response.json["id_token"] as! String, as: Claims.self)
                #expect(id.sub.value == access.sub.value)
            }
        }
    }

    @Test("tokens signed before a rotation still verify (with jwt-kit) against the JWKS published after it")
    func rotationKeepsOldTokensValid() async throws {
        try await withIssuer(environment: ["ISSUER_KEYS_RELOAD_SECONDS": "1"]) { fixture in
            try await fixture.test { client in
                let before = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken()])
                let oldToken = before.json["access_token"] as! String
                let oldKid = try #require(try fixture.ring().active?.kid)
                _ = try KeyRotation(
                    store: KeyRingDirectory(directory: fixture.keysDirectory),
                    policy: KeyRotationPolicy(configuration: fixture.configuration), clock: SystemClock()
                ).rotate(force: true)
                var jwks = ""
                for _ in 0..<150 {
                    jwks = String(buffer: try await client.get("/oauth2/jwks.json").body)
                    if jwks.components(separatedBy: "\"kid\"").count == 4 { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(jwks.components(separatedBy: "\"kid\"").count == 4, "active, next and the retired key")
                let after = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken()])
                let newToken = after.json["access_token"] as! String
                #expect(try JWSParsedHeader.kid(of: newToken) != oldKid, "new tokens are signed by the promoted key")
                let keys = JWTKeyCollection()
                try await keys.add(jwksJSON: jwks)
                struct Claims: JWTPayload {
                    var sub: SubjectClaim
                    func verify(using algorithm: some JWTAlgorithm) async throws {}
                }
                _ = try await keys.verify(oldToken, as: Claims.self)
                _ = try await keys.verify(newToken, as: Claims.self)
            }
        }
    }
}
