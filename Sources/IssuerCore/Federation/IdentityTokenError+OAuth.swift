extension IdentityTokenError {
    /// docs/reference.md, "Native sign-in": not a JWT at all → `invalid_request`; a JWT that fails a check →
    /// `invalid_grant`; the provider's keys unreachable with nothing cached → 503.
    public var oauthError: OAuthError {
        switch self {
        case .malformed(let reason): return .invalidRequest("id_token is not a valid JWT.", debug: reason)
        case .rejected(let reason): return .invalidGrant("The identity token was rejected.", debug: reason)
        case .keysUnavailable(let reason):
            return .temporarilyUnavailable("The identity provider's keys cannot be fetched; try again later.", debug: reason)
        }
    }

    /// RFC 8693 §2.2.2: an invalid `subject_token` is `invalid_request`.
    public var tokenExchangeError: OAuthError {
        switch self {
        case .malformed, .rejected:
            return .invalidRequest("subject_token is not a valid identity token.", debug: "\(self)")
        case .keysUnavailable:
            return oauthError
        }
    }
}
