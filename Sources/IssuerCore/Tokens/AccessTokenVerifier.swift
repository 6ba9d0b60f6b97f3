import Foundation
import JOSE

/// Verifies the issuer's own access tokens (RFC 9068 §4), for `/userinfo` and the account
/// endpoints (docs/reference.md, "UserInfo" and "Two proofs of one session"), once per request.
///
/// The order is cheapest and least trusting first: structure and `alg` (JOSE's RS256 allow-list,
/// before any key is touched), `typ`, `kid` among the published keys, the signature, then claims.
/// Session revocation is not checked here: that needs the database and belongs to the caller.
public struct AccessTokenVerifier: Sendable {
    /// The expected `iss`: `ISSUER_URL`, exactly (RFC 9068 §4).
    public let issuer: String
    /// The expected `aud`: `ISSUER_AUDIENCE` (RFC 9068 §4).
    public let audience: String
    /// Where "now" comes from for `exp` (RFC 9068 §4).
    public let clock: any WallClock
    /// Longest token accepted before parsing; docs/reference.md, "Faults and bad input" bounds tokens at 16 KiB.
    public let maxLength: Int

    /// A verifier for `ISSUER_URL` and `ISSUER_AUDIENCE` (docs/reference.md, "Configuration").
    public init(issuer: String, audience: String, clock: any WallClock, maxLength: Int = 16 * 1024) {
        self.issuer = issuer
        self.audience = audience
        self.clock = clock
        self.maxLength = maxLength
    }

    /// The token's claims if it is a valid, unexpired access token of this issuer signed by one of
    /// the ring's published keys (docs/reference.md, "JWKS"); otherwise the reason it is not.
    public func verify(_ token: some StringProtocol, ring: KeyRing) throws(AccessTokenVerificationError) -> AccessTokenClaims {
        let now = clock.now
        let verified: JWSVerified
        do {
            verified = try JWS.verify(token, allowedAlgorithms: [.rs256], maxLength: maxLength) { header in
                // Refusing the type here, before the signature, spares an RSA verification for an ID token.
                guard header.typ == AccessTokenClaims.type else { throw AccessTokenVerificationError.wrongType }
                guard let kid = header.kid, let key = ring.key(kid: kid), key.isPublished(at: now) else { return nil }
                return key.publicKey
            }
        } catch let error as AccessTokenVerificationError {
            throw error
        } catch JOSEError.unsupportedAlgorithm {
            throw .unsupportedAlgorithm
        } catch JOSEError.unknownKey {
            throw .unknownKey
        } catch JOSEError.badSignature {
            throw .badSignature
        } catch {
            throw .malformed
        }
        let claims: AccessTokenClaims
        do {
            claims = try JSONDecoder().decode(AccessTokenClaims.self, from: verified.payload)
        } catch {
            throw .malformed
        }
        guard claims.issuer == issuer else { throw .wrongIssuer }
        guard claims.audience == audience else { throw .wrongAudience }
        guard now < Date(timeIntervalSince1970: TimeInterval(claims.expiresAt)) else { throw .expired }
        return claims
    }
}
