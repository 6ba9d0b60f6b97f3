/// A JSON Web Key Set (RFC 7517 §5), as served from an OpenID Provider's `jwks_uri`.
public struct JWKS: Codable, Sendable, Equatable {
    /// The keys of the set (RFC 7517 §5.1).
    public var keys: [JWK]

    /// Creates a set from its keys (RFC 7517 §5.1).
    public init(keys: [JWK]) {
        self.keys = keys
    }
}
