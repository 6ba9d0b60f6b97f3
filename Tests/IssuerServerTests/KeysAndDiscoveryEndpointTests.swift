import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import JOSE
import JWTKit
import Testing
import TestSupport

@Suite("JWKS and discovery (SPEC §3.4, §3.5)")
struct KeysAndDiscoveryEndpointTests {
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
                    store: KeyRingStore(directory: fixture.keysDirectory),
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

    @Test("discovery: issuer exactly ISSUER_URL, every advertised URL served, every advertised grant accepted",
          arguments: ["http://127.0.0.1:8080", "https://id.example.com/oidc", "https://id.example.com/oidc/"])
    func discovery(issuerURL: String) async throws {
        try await withIssuer(environment: ["ISSUER_URL": issuerURL]) { fixture in
            let prefix = fixture.configuration.pathPrefix
            try await fixture.test { client in
                let response = try await client.get("\(prefix)/.well-known/openid-configuration")
                #expect(response.status == .ok)
                let document = response.json
                #expect(document["issuer"] as? String == issuerURL)
                for required in ["jwks_uri", "response_types_supported", "subject_types_supported", "id_token_signing_alg_values_supported",
                                 "token_endpoint", "apple_exchange_endpoint", "grant_types_supported", "scopes_supported", "claims_supported",
                                 "token_endpoint_auth_methods_supported", "authorization_endpoint", "end_session_endpoint",
                                 "userinfo_endpoint", "revocation_endpoint", "code_challenge_methods_supported"] {
                    #expect(document[required] != nil, "\(required)")
                }
                #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
                #expect(document["subject_types_supported"] as? [String] == ["public"])
                #expect(document["code_challenge_methods_supported"] as? [String] == ["S256"])
                #expect(document["response_types_supported"] as? [String] == ["code"])
                #expect((document["grant_types_supported"] as? [String])?.contains("authorization_code") == true)

                let alias = try await client.get("/.well-known/oauth-authorization-server\(prefix)")
                #expect(alias.status == .ok)
                #expect(alias.json["issuer"] as? String == issuerURL)

                // Every URL it names resolves on this server (a GET may be 405/400, never 404).
                let base = issuerURL.hasSuffix("/") ? String(issuerURL.dropLast()) : issuerURL
                for (name, value) in document where name.hasSuffix("_endpoint") || name == "jwks_uri" {
                    let url = try #require(value as? String)
                    #expect(url.hasPrefix(base + "/"), "\(name) hangs off the issuer")
                    let path = prefix + String(url.dropFirst(base.count))
                    let probe = try await client.executeRequest(
                        uri: path, method: name == "jwks_uri" ? .get : .post,
                        headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "probe=1"))
                    #expect(probe.status != .notFound, "\(name) \(path)")
                }
                for grant in try #require(document["grant_types_supported"] as? [String]) {
                    let probe = try await client.postForm("\(prefix)/oauth2/token", [("grant_type", grant)])
                    #expect(probe.json["error"] as? String != "unsupported_grant_type", "\(grant)")
                }
            }
        }
    }
}

/// Reads a compact JWS header's `kid` without verifying anything (test inspection only).
enum JWSParsedHeader {
    static func kid(of token: String) throws -> String? {
        try JWS.parse(token, allowedAlgorithms: [.rs256]).header.kid
    }
}
