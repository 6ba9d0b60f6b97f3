/// JWS signature algorithms this module implements (RFC 7518 §3.1).
///
/// Only RS256 exists: an allow-list built from this enum can never admit `none` (RFC 7518 §3.6) or an HMAC
/// algorithm keyed with public RSA bytes, the classic algorithm-confusion attacks on JWS verifiers.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 using SHA-256 (RFC 7518 §3.3); mandatory for OpenID Connect ID Tokens (OIDC Core §15.1).
    case rs256 = "RS256"
}
