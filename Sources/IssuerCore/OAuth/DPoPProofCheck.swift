import Crypto
import Foundation
import JOSE

/// What a token request's `DPoP` header is held to (RFC 9449 §4.3, docs/reference.md, "DPoP"):
/// the proof's own checks, the server's nonce where one is asked for, then the shared `jti`
/// memory. Run before any grant looks at the request, so a failing proof changes nothing but,
/// for a proof that passed every other check, the memory of its `jti`.
public struct DPoPProofCheck: Sendable {
    private let verifier: DPoPProofVerifier
    private let replays: any DPoPReplayStoring
    private let clock: any WallClock
    private let base: String
    /// With `ISSUER_DPOP_NONCE=on`, the server nonces token requests' proofs carry (the next one
    /// goes out on every answer of the endpoints that issue tokens); nil when off.
    public let nonces: DPoPNonces?

    /// - Parameters:
    ///   - replays: the shared `jti` memory.
    ///   - issuerURL: `ISSUER_URL`, under which every `htu` is served.
    ///   - nonces: with `ISSUER_DPOP_NONCE=on`, the server nonces every token request's proof
    ///     must carry; nil when off.
    public init(replays: any DPoPReplayStoring, clock: any WallClock, issuerURL: String, nonces: DPoPNonces? = nil) {
        self.verifier = DPoPProofVerifier(clock: clock)
        self.replays = replays
        self.clock = clock
        self.base = issuerURL.hasSuffix("/") ? String(issuerURL.dropLast()) : issuerURL
        self.nonces = nonces
    }

    /// The verified proof among `headers` (every `DPoP` field of the request), or nil without one.
    /// - Parameters:
    ///   - path: the endpoint's path under `ISSUER_URL` (`/oauth2/token`): `htu` must be both.
    ///   - recordsJTI: false for the refresh grant, whose rotation statement records the `jti`
    ///     itself (one round trip, where an identical resend within the grace is the retry after a
    ///     lost answer); the proof is then returned unrecorded, for the grant. Here any reuse of a
    ///     `jti` is refused.
    ///   - accessToken: at a resource, the token the proof accompanies: its `ath` must be the
    ///     token's hash (RFC 9449 §4.3 check 12). Without one the request asks for tokens, and
    ///     its proof carries the server's nonce when nonces are on (`use_dpop_nonce` otherwise,
    ///     before the `jti` is remembered, so the client's next proof is not a replay).
    public func check(
        _ headers: [String], method: String, path: String, recordsJTI: Bool = true, accessToken: String? = nil
    ) async throws(OAuthError) -> DPoPProof? {
        guard let header = headers.first else { return nil }
        guard headers.count == 1 else { throw .invalidDPoPProof("Send one DPoP header, not several.") }
        let proof = try verifier.verify(header, method: method, url: base + path)
        if let accessToken, proof.accessTokenHash != Base64URL.encode(Array(SHA256.hash(data: Data(accessToken.utf8)))) {
            throw .invalidDPoPProof("The DPoP proof's ath is not the hash of the access token.")
        }
        if accessToken == nil, let nonces, !nonces.accepts(proof.nonce) {
            throw .useDPoPNonce("The DPoP proof must carry the nonce of the DPoP-Nonce header.")
        }
        guard recordsJTI else { return proof }
        let now = clock.now
        let fresh: Bool
        do {
            fresh = try await replays.record(
                proof, now: now, resendSince: nil)
        } catch {
            throw .storage(error)
        }
        guard fresh else { throw .invalidDPoPProof("The DPoP proof's jti was used before.") }
        return proof
    }
}
