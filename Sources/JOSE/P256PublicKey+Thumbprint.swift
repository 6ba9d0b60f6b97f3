extension P256PublicKey {
    /// The RFC 7638 §3 JWK thumbprint: base64url SHA-256 of `{"crv":"P-256","kty":"EC","x":…,"y":…}`.
    ///
    /// RFC 7638 §3.2 fixes the member set (§3.2 lists `crv`, `kty`, `x`, `y` for EC keys), their lexicographic
    /// order and the absence of whitespace, so the JSON is written by hand as for RSA keys; base64url values need
    /// no JSON escaping. This is the `jkt` a DPoP-bound token carries (RFC 9449 §6.1).
    public var thumbprint: String {
        let canonical = #"{"crv":"P-256","kty":"EC","x":""# + Base64URL.encode(x) + #"","y":""# + Base64URL.encode(y) + #""}"#
        return Base64URL.encode(JOSEDigest.sha256(Array(canonical.utf8)))
    }
}
