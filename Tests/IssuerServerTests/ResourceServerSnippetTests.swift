// The code between the markers is docs/resource-servers.md's Swift verifier, character for
// character: scripts/check-deploy fails when the two differ. Change both together.
// tested-snippet:begin
import Foundation
import JWTKit

/// The claims of an Issuer access token (RFC 9068) that a resource server checks.
struct IssuerAccessToken: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var scope: String?
    var clientID: String?
    var sid: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, scope, sid
        case clientID = "client_id"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired(currentDate: Date().addingTimeInterval(-60))
    }
}

enum IssuerTokenError: Error {
    case notRS256, notAnAccessToken, unknownKey, wrongIssuer, wrongAudience
}

/// Verifies Issuer's access tokens offline: RS256 only, typ at+jwt, iss, aud, exp; caches the
/// JWKS for 5 minutes and refetches at once (at most every 30 s) on an unknown kid.
actor IssuerTokenVerifier {
    let issuer: String
    let audience: String
    private let fetchJWKS: @Sendable () async throws -> Data
    private var keys = JWTKeyCollection()
    private var kids: Set<String> = []
    private var fetchedAt: ContinuousClock.Instant?

    init(issuer: String, audience: String, fetchJWKS: @escaping @Sendable () async throws -> Data) {
        self.issuer = issuer
        self.audience = audience
        self.fetchJWKS = fetchJWKS
    }

    func verify(_ token: String) async throws -> IssuerAccessToken {
        let header = try Self.header(of: token)
        guard header["alg"] as? String == "RS256" else { throw IssuerTokenError.notRS256 }
        let type = (header["typ"] as? String)?.lowercased()
        guard type == "at+jwt" || type == "application/at+jwt" else { throw IssuerTokenError.notAnAccessToken }
        let kid = header["kid"] as? String ?? ""
        try await refreshKeys(needing: kid)
        guard kids.contains(kid) else { throw IssuerTokenError.unknownKey }
        let claims = try await keys.verify(token, as: IssuerAccessToken.self)
        guard claims.iss.value == issuer else { throw IssuerTokenError.wrongIssuer }
        guard claims.aud.value.contains(audience) else { throw IssuerTokenError.wrongAudience }
        return claims
    }

    private func refreshKeys(needing kid: String) async throws {
        let age = fetchedAt.map { ContinuousClock.now - $0 }
        let stale = age.map { $0 > .seconds(300) } ?? true
        let mayRefetch = age.map { $0 > .seconds(30) } ?? true
        guard stale || (!kids.contains(kid) && mayRefetch) else { return }
        do {
            let jwks = try await fetchJWKS()
            let fresh = JWTKeyCollection()
            try await fresh.add(jwksJSON: String(decoding: jwks, as: UTF8.self))
            let set = try JSONDecoder().decode(JWKS.self, from: jwks)
            keys = fresh
            kids = Set(set.keys.compactMap { $0.keyIdentifier?.string })
            fetchedAt = .now
        } catch where !kids.isEmpty {
            // Issuer unreachable: keep verifying with the keys we have.
        }
    }

    private static func header(of token: String) throws -> [String: Any] {
        guard let first = token.split(separator: ".", omittingEmptySubsequences: false).first else {
            throw IssuerTokenError.notAnAccessToken
        }
        var base64 = first.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw IssuerTokenError.notAnAccessToken }
        return object
    }
}
// tested-snippet:end

import HummingbirdTesting
import Testing

/// docs/resource-servers.md's Swift verifier, run against an in-process issuer (docs/reference.md, "Access tokens",
/// RFC 9068 §4): it accepts the access tokens Issuer mints and refuses everything the page says
/// it refuses.
@Suite("docs/resource-servers.md: the Swift verifier")
struct ResourceServerSnippetTests {
    @Test("accepts an access token; refuses an ID token, another audience or issuer, a forged signature, alg none and HS256")
    func verifier() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken()])
                let access = try #require(response.json["access_token"] as? String)
                let id = try #require(response.json["id_token"] as? String)
                let jwks = Data(String(buffer: try await client.get("/oauth2/jwks.json").body).utf8)
                let issuer = fixture.configuration.issuerURL.absoluteString
                let verifier = IssuerTokenVerifier(issuer: issuer, audience: "clanboards-mobile") { jwks }

                let claims = try await verifier.verify(access)
                #expect(claims.scope == "openid email profile")
                #expect(claims.clientID == "clanboards-mobile")
                #expect(claims.sid?.isEmpty == false)

                await #expect(throws: IssuerTokenError.notAnAccessToken) { try await verifier.verify(id) }
                let otherAPI = IssuerTokenVerifier(issuer: issuer, audience: "another-api") { jwks }
                await #expect(throws: IssuerTokenError.wrongAudience) { try await otherAPI.verify(access) }
                let otherIssuer = IssuerTokenVerifier(issuer: issuer + "/", audience: "clanboards-mobile") { jwks }
                await #expect(throws: IssuerTokenError.wrongIssuer) { try await otherIssuer.verify(access) }

                let parts = access.split(separator: ".").map(String.init)
                let forged = parts[0] + "." + parts[1] + "." + String(parts[2].reversed())
                await #expect(throws: (any Error).self) { try await verifier.verify(forged) }
                for alg in ["none", "HS256"] {
                    let header = Data(#"{"alg":"\#(alg)","typ":"at+jwt","kid":"x"}"#.utf8).base64EncodedString()
                        .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    await #expect(throws: IssuerTokenError.notRS256) { try await verifier.verify(header + "." + parts[1] + ".") }
                }
            }
        }
    }

    @Test("the JWKS is fetched once, and an unknown kid within 30 s of it is refused without another fetch")
    func boundedRefetch() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken()])
                let access = try #require(response.json["access_token"] as? String)
                let jwks = Data(String(buffer: try await client.get("/oauth2/jwks.json").body).utf8)
                let fetches = FetchCounter()
                let verifier = IssuerTokenVerifier(issuer: fixture.configuration.issuerURL.absoluteString, audience: "clanboards-mobile") {
                    await fetches.increment()
                    return jwks
                }
                _ = try await verifier.verify(access)
                _ = try await verifier.verify(access)
                #expect(await fetches.count == 1)

                let parts = access.split(separator: ".").map(String.init)
                let header = Data(#"{"alg":"RS256","typ":"at+jwt","kid":"not-a-key-of-ours"}"#.utf8).base64EncodedString()
                    .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                await #expect(throws: IssuerTokenError.unknownKey) { try await verifier.verify(header + "." + parts[1] + "." + parts[2]) }
                #expect(await fetches.count == 1)
            }
        }
    }
}

private actor FetchCounter {
    private(set) var count = 0
    func increment() { count += 1 }
}
