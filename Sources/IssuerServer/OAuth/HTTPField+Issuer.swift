import HTTPTypes

extension HTTPField.Name {
    /// The de-facto proxy header, trusted only from `ISSUER_TRUSTED_PROXIES`.
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// RFC 9111 §5.4: the HTTP/1.0 twin of `Cache-Control: no-store` that RFC 6749 §5.1 asks for.
    static let pragma = HTTPField.Name("Pragma")!

    /// RFC 9449 §4.1: the proof of possession a token request may carry (docs/reference.md, "DPoP").
    static let dpop = HTTPField.Name("DPoP")!

    /// RFC 9449 §8.1: the nonce the next proof must carry (docs/reference.md, "DPoP").
    static let dpopNonce = HTTPField.Name("DPoP-Nonce")!
}
