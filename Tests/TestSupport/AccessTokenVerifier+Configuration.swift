import IssuerCore

extension AccessTokenVerifier {
    /// A verifier for the tokens an issuer with `configuration` signs (docs/reference.md, "Configuration": `ISSUER_URL`,
    /// `ISSUER_AUDIENCE`), for tests that hold a whole configuration; production code passes the two fields.
    public init(configuration: Configuration, clock: any WallClock) {
        self.init(issuer: configuration.issuerURL.absoluteString, audience: configuration.audience, clock: clock)
    }
}
