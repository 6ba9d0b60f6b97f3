/// Which step of checking a provider's JWS refused it (`IdentityTokenVerifier.signedPayload`),
/// before any claim is read. An identity token's refusal does not tell these apart
/// (`IdentityTokenError`); a security event token's does (RFC 8935 §2.4.1: `invalid_request`,
/// `invalid_key`, `authentication_failed`).
public enum SignatureCheckFailure: Error, Sendable, Equatable {
    /// Not a compact JWS, or too large.
    case malformed(String)
    /// A `crit` header: no extension is understood here (RFC 7515 §4.1.11).
    case criticalHeader
    /// An `alg` the provider may not use (never `none` or an HMAC, RFC 8725 §3.1).
    case algorithm(String)
    /// No key of the provider's set has the token's `kid`.
    case unknownKey
    /// The signature does not verify with that key, or the `alg` is not the key's.
    case signature
    /// The provider's keys cannot be had and nothing usable is cached.
    case keysUnavailable(String)

    /// The same refusal as an identity token's, with the reasons the logs have always carried.
    var identityTokenError: IdentityTokenError {
        switch self {
        case .malformed(let reason): .malformed(reason)
        case .criticalHeader: .rejected("crit header")
        case .algorithm(let reason): .rejected(reason)
        case .unknownKey: .rejected("unknown kid")
        case .signature: .rejected("signature does not verify")
        case .keysUnavailable(let reason): .keysUnavailable(reason)
        }
    }
}
