/// Why a provider's ID token was refused. `malformed` is not a JWT at all; `rejected` is a
/// well-formed token that failed a check; `keysUnavailable` is the provider's fault, not the
/// client's.
public enum IdentityTokenError: Error, Sendable, Equatable {
    case malformed(String)
    case rejected(String)
    case keysUnavailable(String)
}
