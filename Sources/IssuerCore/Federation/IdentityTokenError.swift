/// Why a provider's credential was refused. `malformed` is not a JWT at all; `rejected` is a
/// well-formed credential that failed a check; `keysUnavailable` and `providerUnavailable` are
/// the provider's fault, not the client's; `incomplete` is a request that lacks what the
/// provider's credential needs (Limited Login's nonce).
public enum IdentityTokenError: Error, Sendable, Equatable {
    case malformed(String)
    case rejected(String)
    case keysUnavailable(String)
    /// The provider could not be asked (Facebook's Graph API down, slow or throttling).
    case providerUnavailable(String)
    /// What the client is told is missing.
    case incomplete(String)
}
