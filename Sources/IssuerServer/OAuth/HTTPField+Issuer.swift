import HTTPTypes

extension HTTPField.Name {
    /// The de-facto proxy header, trusted only from `ISSUER_TRUSTED_PROXIES`.
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}
