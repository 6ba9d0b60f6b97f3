import IssuerCore

extension AppleTokenAPI {
    /// Apple's token and revoke endpoints over HTTP (SPEC §7's rules), with the configured
    /// developer credentials; nil without them. For the admin CLI (`issuer users delete`).
    public static func live(_ configuration: Configuration, clock: any WallClock) -> AppleTokenAPI? {
        configuration.appleCredentials.map { credentials in
            AppleTokenAPI(
                transport: HTTPAppleTransport(),
                secret: AppleClientSecret(teamID: credentials.teamID, keyID: credentials.keyID, key: credentials.signingKey, clock: clock),
                tokenURL: configuration.appleTokenURL, revokeURL: configuration.appleRevokeURL)
        }
    }
}
