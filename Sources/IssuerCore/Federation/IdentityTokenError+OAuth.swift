extension IdentityTokenError {
    /// The token carries a nonce and the request sent none (docs/reference.md, "Native sign-in").
    public static let nonceMissing = IdentityTokenError.rejected(NoncePolicy.missingReason)
    /// `ISSUER_APPLE_REQUIRE_NONCE` and the request sent no nonce.
    public static let nonceRequired = IdentityTokenError.rejected("nonce required")

    /// What a client is told about its nonce: the checks' other reasons stay in the log, but a
    /// missing nonce is the app's integration mistake, and saying so costs nothing (the claim is
    /// readable in the token).
    private var nonceAdvice: String? {
        switch self {
        case Self.nonceMissing: "The identity token carries a nonce: send the raw nonce the app generated as `nonce`."
        case Self.nonceRequired: "A nonce is required: send the raw nonce the app generated as `nonce`."
        default: nil
        }
    }

    /// docs/reference.md, "Native sign-in": not a JWT at all → `invalid_request`; a JWT that fails a check →
    /// `invalid_grant`; the provider's keys unreachable with nothing cached → 503.
    public var oauthError: OAuthError {
        switch self {
        case .malformed(let reason): return .invalidRequest("id_token is not a valid JWT.", debug: reason)
        case .rejected(let reason): return .invalidGrant(nonceAdvice ?? "The identity token was rejected.", debug: reason)
        case .keysUnavailable(let reason):
            return .temporarilyUnavailable("The identity provider's keys cannot be fetched; try again later.", debug: reason)
        case .providerUnavailable(let reason):
            return .temporarilyUnavailable("The identity provider cannot be reached; try again later.", debug: reason)
        case .incomplete(let description):
            return .invalidRequest(description)
        }
    }

    /// RFC 8693 §2.2.2: an invalid `subject_token` is `invalid_request`.
    public var tokenExchangeError: OAuthError {
        switch self {
        case .malformed, .rejected:
            return .invalidRequest(nonceAdvice ?? "subject_token is not a valid identity token.", debug: "\(self)")
        case .keysUnavailable, .providerUnavailable, .incomplete:
            return oauthError
        }
    }
}
