import Foundation

extension AppleTokenAPI {
    /// Apple's token and revoke endpoints (docs/reference.md, "Apple token custody") called with the developer credentials
    /// `ISSUER_APPLE_TEAM_ID`, `ISSUER_APPLE_KEY_ID` and `ISSUER_APPLE_PRIVATE_KEY_FILE` (docs/reference.md, "Configuration"),
    /// whose client secret is dated by `clock`.
    public init(
        credentials: Configuration.AppleCredentials, transport: any FormPoster, tokenURL: URL, revokeURL: URL,
        migrationURL: URL? = nil, clock: any WallClock
    ) {
        self.init(
            transport: transport,
            secret: AppleClientSecret(teamID: credentials.teamID, keyID: credentials.keyID, key: credentials.signingKey, clock: clock),
            tokenURL: tokenURL, revokeURL: revokeURL, migrationURL: migrationURL)
    }
}
