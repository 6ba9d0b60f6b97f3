import Foundation
import JOSE

/// Verifies a provider's ID token (OIDC Core §3.1.3.7) in the order (docs/reference.md, "Native sign-in"): size, shape,
/// `alg` in the provider's allow-list (RS256 for Apple; RS256 or ES256 for others; refused before
/// any key is looked up), `kid`, a signature by that key with the key's own algorithm, `iss`, `aud`,
/// `exp`/`iat` with at most 60 s leeway, then the nonce.
public struct IdentityTokenVerifier: Sendable {
    /// docs/reference.md, "Faults and bad input": identity tokens over 16 KiB are refused unread.
    public static let maximumTokenLength = 16 * 1024
    /// Allowed clock skew for `exp` and `iat`.
    public static let leeway: TimeInterval = 60

    /// Whose tokens are accepted: its `iss`, and its keys through the cache.
    public let provider: IdentityProvider
    private let keys: RemoteJWKSCache
    private let clock: any WallClock

    /// - Parameter keys: the cache of `provider`'s JWK Set.
    public init(provider: IdentityProvider, keys: RemoteJWKSCache, clock: any WallClock) {
        self.provider = provider
        self.keys = keys
        self.clock = clock
    }

    /// - Parameters:
    ///   - token: the provider's compact JWS.
    ///   - audiences: the `aud` values accepted (the configured bundle IDs or Services ID).
    ///   - nonce: the raw nonce the client generated, if it sent one.
    ///   - noncePolicy: how it must match the token's claim (docs/reference.md, "Native sign-in").
    ///   - keepingName: whether the token's `given_name` and `family_name` (at most 256 bytes,
    ///     without control characters) go on the identity, for a connector that keeps them.
    public func verify(
        _ token: String, audiences: Set<String>, nonce: String?, noncePolicy: NoncePolicy, keepingName: Bool = false
    ) async throws(IdentityTokenError) -> ExternalIdentity {
        let (claims, verified) = try await verifiedClaims(token, audiences: audiences)
        var identity = verified
        try noncePolicy.check(raw: nonce, claim: claims.nonce)
        if keepingName {
            func kept(_ part: String?) -> String? {
                part.flatMap { !$0.isEmpty && $0.utf8.count <= 256 && !$0.containsControlCharacters ? $0 : nil }
            }
            identity.givenName = kept(claims.givenName)
            identity.familyName = kept(claims.familyName)
        }
        return identity
    }

    /// The ID token in a provider's answer to our own code redemption (docs/reference.md,
    /// "Apple token custody"): verified as a sign-in's token is, for the one audience the code was
    /// redeemed for, with no nonce rule (the nonce belonged to the sign-in, already checked).
    /// `receivedAt`: when the answer came from the provider, for an answer held while the keys
    /// could not be fetched; its `exp` and `iat` are judged at that time, not now.
    public func verifyTokenAnswer(
        _ token: String, audience: String, receivedAt: Date? = nil
    ) async throws(IdentityTokenError) -> ExternalIdentity {
        try await verifiedClaims(token, audiences: [audience], at: receivedAt).identity
    }

    /// Everything up to the nonce: signature, `iss`, `aud`, `exp`, `iat`, `sub`.
    private func verifiedClaims(
        _ token: String, audiences: Set<String>, at instant: Date? = nil
    ) async throws(IdentityTokenError) -> (claims: IdentityTokenClaims, identity: ExternalIdentity) {
        let payload = try await verifiedPayload(token)
        let claims: IdentityTokenClaims
        do {
            claims = try JSONDecoder().decode(IdentityTokenClaims.self, from: payload)
        } catch {
            throw .rejected("claims of the wrong type")
        }
        guard let iss = claims.iss, provider.issuers.contains(iss) else { throw .rejected("wrong iss") }
        // OIDC Core §3.1.3.7 step 3: the token must be meant for us, and for nobody else we do not
        // trust: a token that also names a stranger's audience was issued to that stranger too.
        guard let audience = claims.aud.first(where: audiences.contains) else { throw .rejected("wrong aud") }
        guard claims.aud.allSatisfy(audiences.contains) else { throw .rejected("an untrusted aud beside ours") }
        // OIDC Core §2 `azp`: the party the token was issued to (Google: the Android app's client
        // id beside the server's web client id). One we accept as an audience is ours (Google's
        // hosted flow names its own client); any other must be a configured authorized party.
        if let azp = claims.azp, !audiences.contains(azp), !provider.authorizedParties.contains(azp) {
            throw .rejected("wrong azp")
        }
        if let domain = provider.hostedDomain, claims.hd != domain { throw .rejected("wrong hd") }
        let now = (instant ?? clock.now).timeIntervalSince1970
        guard let exp = claims.exp, exp + Self.leeway > now else { throw .rejected("expired") }
        guard let iat = claims.iat, iat - Self.leeway <= now else { throw .rejected("iat in the future") }
        guard let subject = claims.sub, !subject.isEmpty else { throw .rejected("no sub") }
        var identity = ExternalIdentity(
            provider: provider.name, subject: subject, audience: audience, email: claims.email,
            emailVerified: claims.emailVerified, isPrivateEmail: claims.isPrivateEmail, codeHash: claims.codeHash)
        identity.transferSub = claims.transferSub.flatMap { $0.isEmpty || $0.utf8.count > 256 ? nil : $0 }
        return (claims, identity)
    }

    /// The payload of a JWS signed by one of the provider's keys, checked in the order up (docs/reference.md, "Native sign-in")
    /// to the signature (size, shape, `alg`, `kid`, signature) and no further: the caller
    /// checks the claims of its kind of token (an identity token here, a server-to-server
    /// notification in `AppleNotifications`), through this one cache of the provider's keys.
    public func verifiedPayload(_ token: String) async throws(IdentityTokenError) -> Data {
        do throws(SignatureCheckFailure) {
            return try await signedPayload(token)
        } catch {
            throw error.identityTokenError
        }
    }

    /// `verifiedPayload`, saying which step refused the token (a security event token's answer
    /// names it, docs/reference.md, "Google's account-protection events").
    public func signedPayload(_ token: String) async throws(SignatureCheckFailure) -> Data {
        let parsed: JWSParsed
        do {
            parsed = try JWS.parse(token, allowedAlgorithms: provider.algorithms, maxLength: Self.maximumTokenLength)
        } catch JOSEError.unsupportedAlgorithm {
            throw .algorithm("alg is not \(provider.algorithms.map(\.rawValue).sorted().joined(separator: " or "))")
        } catch JOSEError.criticalHeader {
            throw .criticalHeader
        } catch JOSEError.tooLarge {
            throw .malformed("token over \(Self.maximumTokenLength) bytes")
        } catch {
            throw .malformed("not a compact JWS")
        }
        let key: JWSVerificationKey
        do throws(RemoteJWKSError) {
            key = try await keys.key(kid: parsed.header.kid)
        } catch {
            switch error {
            case .unknownKey: throw .unknownKey
            case .unavailable(let reason): throw .keysUnavailable(reason)
            }
        }
        // The key decides the algorithm: a token whose `alg` is not its key's is refused
        // (RFC 8725 §3.1), as is one whose signature does not verify.
        do { return try parsed.verified(with: key).payload } catch { throw .signature }
    }
}
