extension RSAPublicKey {
    /// Builds a verification key from an RSA JWK (RFC 7518 §6.3.1).
    ///
    /// Besides `kty`, `n` and `e`, a key whose `use` (RFC 7517 §4.2) is not `"sig"` or whose `alg` (RFC 7517 §4.4)
    /// is not `"RS256"` is refused: the publisher said it is not meant for RS256 signatures.
    public convenience init(jwk: JWK) throws {
        guard jwk.kty == "RSA",
            jwk.use == nil || jwk.use == "sig",
            jwk.alg == nil || jwk.alg == JWSAlgorithm.rs256.rawValue,
            let n = jwk.n.flatMap({ Base64URL.decode($0) }),
            let e = jwk.e.flatMap({ Base64URL.decode($0) })
        else { throw JOSEError.invalidKey }
        try self.init(modulus: Array(n), exponent: Array(e))
    }

    /// The public JWK (RFC 7517 §4) for a JWKS, with the RFC 7638 thumbprint as `kid`.
    ///
    /// The thumbprint is a stable, collision-resistant identifier derived from the key itself (RFC 7638 §1), so
    /// rotation needs no separate kid bookkeeping.
    public var jwk: JWK {
        jwk(kid: thumbprint)
    }

    /// The public JWK (RFC 7517 §4) with a caller-chosen `kid` (RFC 7517 §4.5), marked for RS256 signatures.
    public func jwk(kid: String?) -> JWK {
        JWK(
            kty: "RSA",
            use: "sig",
            alg: JWSAlgorithm.rs256.rawValue,
            kid: kid,
            n: Base64URL.encode(modulus),
            e: Base64URL.encode(exponent)
        )
    }
}
