/// JWS signature algorithms this module implements (RFC 7518 §3.1).
///
/// Only asymmetric algorithms exist: an allow-list built from this enum can never admit `none` (RFC 7518 §3.6) or an
/// HMAC algorithm keyed with public key bytes, the classic algorithm-confusion attacks on JWS verifiers. Which of
/// them a token may use is decided twice: by the caller's allow-list before any key is looked up, and by the key
/// itself, which verifies exactly one algorithm (``JWSVerificationKey/algorithm``).
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 using SHA-256 (RFC 7518 §3.3); mandatory for OpenID Connect ID Tokens (OIDC Core §15.1).
    case rs256 = "RS256"
    /// ECDSA using P-256 and SHA-256 (RFC 7518 §3.4). Verification only: some OpenID Providers sign their ID tokens
    /// with it, but every token this module signs is RS256.
    case es256 = "ES256"
}
