import Foundation
import IssuerCore
import JOSE
import Testing
import TestSupport

/// A signer of the issuer's tokens (docs/reference.md, "Access tokens") over a known key ring at
/// a known time, and a verification as a backend service does it: what the signer's and the
/// access-token verifier's suites share.
enum TokenSigning {
    static let issuer = "https://api.example.com/oidc"
    static let audience = "clanboards-mobile"
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    /// An active key A, a next key B and a retired key C (still published until `start + 3600`).
    static let ring: KeyRing = try! KeyRing(keys: [
        SigningKey(privateKey: TestRSAKeys.a, state: .active, createdAt: start, activatedAt: start),
        SigningKey(privateKey: TestRSAKeys.b, state: .next, createdAt: start),
        SigningKey(
            privateKey: TestRSAKeys.c, state: .retired, createdAt: start, activatedAt: start,
            retiredAt: start, publishedUntil: start.addingTimeInterval(3600)),
    ])

    static let contents = TokenContents(
        subject: "user-123", clientID: "clanboards-mobile", scopes: ["openid", "email", "profile"],
        sessionID: "session-9", authTime: start.addingTimeInterval(-100),
        sessionExpiresAt: start.addingTimeInterval(86_400), nonce: "n-0S6_WzA2Mj",
        profile: .init(email: "a@privaterelay.appleid.com", emailVerified: true, name: "Ada Lovelace", givenName: "Ada", familyName: "Lovelace"))

    static func signer(_ clock: ManualClock, accessTTL: Duration = .seconds(900), idTTL: Duration = .seconds(1800)) -> TokenSigner {
        TokenSigner(issuer: issuer, audience: audience, accessTokenTTL: accessTTL, idTokenTTL: idTTL, clock: clock)
    }

    /// Verifies with JOSE against the ring's published JWKS, the way a backend service would.
    static func verifyAgainstJWKS(_ token: String, at date: Date) throws -> (header: [String: String], claims: [String: Any]) {
        let jwksJSON = try JSONEncoder().encode(ring.jwks(at: date))
        let jwks = try JSONDecoder().decode(JWKS.self, from: jwksJSON)
        let verified = try JWS.verify(token, allowedAlgorithms: [.rs256]) { header in
            try jwks.keys.first { $0.kid == header.kid }.map { try RSAPublicKey(jwk: $0) }
        }
        let headerData = try #require(Base64URL.decode(token.split(separator: ".")[0]))
        let header = try #require(JSONSerialization.jsonObject(with: headerData) as? [String: String])
        let claims = try #require(JSONSerialization.jsonObject(with: verified.payload) as? [String: Any])
        return (header, claims)
    }
}
