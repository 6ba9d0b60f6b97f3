extension RSAPublicKey {
    /// The RFC 7638 §3 JWK thumbprint: base64url SHA-256 of `{"e":…,"kty":"RSA","n":…}`.
    ///
    /// RFC 7638 §3.2 fixes the member set, lexicographic order and absence of whitespace so that every party
    /// computes the same hash; the JSON is therefore written by hand rather than by an encoder whose formatting
    /// could change. Base64url values need no JSON escaping.
    public var thumbprint: String {
        let canonical = #"{"e":""# + Base64URL.encode(exponent) + #"","kty":"RSA","n":""# + Base64URL.encode(modulus) + #""}"#
        return Base64URL.encode(JOSEDigest.sha256(Array(canonical.utf8)))
    }
}
