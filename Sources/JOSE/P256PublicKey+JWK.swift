extension P256PublicKey {
    /// Builds a verification key from an EC JWK (RFC 7518 §6.2.1) on the curve P-256.
    ///
    /// `kty` must be `"EC"` and `crv` `"P-256"` (RFC 7518 §6.2.1.1), and `x` and `y` strict base64url of 32 octets
    /// each (§6.2.1.2, §6.2.1.3). As for RSA keys, a key whose `use` (RFC 7517 §4.2) is not `"sig"` or whose `alg`
    /// (RFC 7517 §4.4) is not `"ES256"` is refused: the publisher said it is not meant for ES256 signatures. Throws
    /// ``JOSEError/invalidKey`` for every refusal.
    public init(jwk: JWK) throws {
        guard jwk.kty == "EC",
            jwk.crv == "P-256",
            jwk.use == nil || jwk.use == "sig",
            jwk.alg == nil || jwk.alg == JWSAlgorithm.es256.rawValue,
            let x = jwk.x.flatMap({ Base64URL.decode($0) }),
            let y = jwk.y.flatMap({ Base64URL.decode($0) })
        else { throw JOSEError.invalidKey }
        try self.init(x: Array(x), y: Array(y))
    }
}
