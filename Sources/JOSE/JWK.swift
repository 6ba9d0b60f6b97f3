/// A JSON Web Key (RFC 7517 §4) restricted to public members: those of RSA keys (RFC 7518 §6.3.1) and of elliptic
/// curve keys (RFC 7518 §6.2.1).
///
/// The struct has no private-key members at all, so neither encoding a published key set nor decoding a foreign
/// one can ever carry `d` (RFC 7518 §6.2.2.1, §6.3.2.1), `p`, `q` and friends; unknown members are ignored on decode
/// (RFC 7517 §4).
public struct JWK: Codable, Sendable, Equatable, Hashable {
    /// Key type (RFC 7517 §4.1); `"RSA"` (RFC 7518 §6.3) and `"EC"` (RFC 7518 §6.2) are usable here.
    public var kty: String
    /// Intended use (RFC 7517 §4.2); `"sig"` for signing keys.
    public var use: String?
    /// Algorithm the key is meant for (RFC 7517 §4.4), e.g. `"RS256"` or `"ES256"`.
    public var alg: String?
    /// Key identifier (RFC 7517 §4.5) matched against the JWS `kid` header (RFC 7515 §4.1.4).
    public var kid: String?
    /// RSA modulus, base64url big-endian (RFC 7518 §6.3.1.1).
    public var n: String?
    /// RSA public exponent, base64url big-endian (RFC 7518 §6.3.1.2).
    public var e: String?
    /// Elliptic curve of an EC key (RFC 7518 §6.2.1.1), e.g. `"P-256"`.
    public var crv: String?
    /// x coordinate of an EC public key, base64url of the full-length big-endian octets (RFC 7518 §6.2.1.2).
    public var x: String?
    /// y coordinate of an EC public key, base64url of the full-length big-endian octets (RFC 7518 §6.2.1.3).
    public var y: String?

    /// Creates a key description; all members except `kty` are optional as in RFC 7517 §4.
    public init(
        kty: String, use: String? = nil, alg: String? = nil, kid: String? = nil, n: String? = nil, e: String? = nil,
        crv: String? = nil, x: String? = nil, y: String? = nil
    ) {
        self.kty = kty
        self.use = use
        self.alg = alg
        self.kid = kid
        self.n = n
        self.e = e
        self.crv = crv
        self.x = x
        self.y = y
    }
}
