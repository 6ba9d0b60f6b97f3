/// Why an access token was refused (RFC 9068 §4, docs/reference.md, "UserInfo"). Every case means `401` with
/// `error="invalid_token"` (RFC 6750 §3.1); the cases exist for logs and metrics.
///
/// Descriptions are fixed text: the token is attacker-controlled and never echoed.
public enum AccessTokenVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a well-formed compact JWS of bounded size (RFC 7515 §7.1), or its claims are not an RFC 9068 §2.2 set.
    case malformed
    /// `alg` is not RS256 (RFC 9068 §4: the algorithm must be one the issuer uses).
    case unsupportedAlgorithm
    /// `typ` is not `at+jwt`, e.g. an ID token presented as an access token (RFC 9068 §4).
    case wrongType
    /// No `kid`, or a `kid` that is not among the ring's published keys.
    case unknownKey
    /// The signature does not verify (RFC 7515 §5.2).
    case badSignature
    /// `iss` is not this issuer (RFC 9068 §4).
    case wrongIssuer
    /// `aud` is not `ISSUER_AUDIENCE` (RFC 9068 §4).
    case wrongAudience
    /// `exp` has passed (RFC 9068 §4, RFC 7519 §4.1.4).
    case expired

    /// A fixed text for logs (docs/reference.md, "UserInfo").
    public var description: String {
        switch self {
        case .malformed: "access token is malformed"
        case .unsupportedAlgorithm: "access token algorithm is not RS256"
        case .wrongType: "token is not an access token (typ is not at+jwt)"
        case .unknownKey: "access token key is unknown"
        case .badSignature: "access token signature does not verify"
        case .wrongIssuer: "access token issuer is not this issuer"
        case .wrongAudience: "access token audience is not this audience"
        case .expired: "access token has expired"
        }
    }
}
