/// Why a remote key could not be had.
public enum RemoteJWKSError: Error, Sendable, Equatable {
    /// The provider's current set has no key with this `kid` (or the token named none).
    case unknownKey
    /// The provider cannot be reached and nothing usable is cached.
    case unavailable(String)
}
