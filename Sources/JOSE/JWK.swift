/// A JSON Web Key (RFC 7517 §4) restricted to the public RSA members of RFC 7518 §6.3.1.
///
/// The struct has no private-key members at all, so neither encoding a published key set nor decoding a
/// foreign one can ever carry `d`, `p`, `q` and friends; unknown members are ignored on decode (RFC 7517 §4).
public struct JWK: Codable, Sendable, Equatable, Hashable {
    /// Key type (RFC 7517 §4.1); only `"RSA"` is usable here.
    public var kty: String
    /// Intended use (RFC 7517 §4.2); `"sig"` for signing keys.
    public var use: String?
    /// Algorithm the key is meant for (RFC 7517 §4.4), e.g. `"RS256"`.
    public var alg: String?
    /// Key identifier (RFC 7517 §4.5) matched against the JWS `kid` header (RFC 7515 §4.1.4).
    public var kid: String?
    /// RSA modulus, base64url big-endian (RFC 7518 §6.3.1.1).
    public var n: String?
    /// RSA public exponent, base64url big-endian (RFC 7518 §6.3.1.2).
    public var e: String?

    /// Creates a key description; all members except `kty` are optional as in RFC 7517 §4.
    public init(kty: String, use: String? = nil, alg: String? = nil, kid: String? = nil, n: String? = nil, e: String? = nil) {
        self.kty = kty
        self.use = use
        self.alg = alg
        self.kid = kid
        self.n = n
        self.e = e
    }
}
