import Foundation

/// Facebook Login's native credential (docs/reference.md, "Facebook"), either of the two an app
/// gets: Limited Login's OpenID token (the only one an iOS app gets when the user declines
/// tracking), verified as any provider's ID token is, with the app id its one audience and the
/// nonce required in its hashed form; or a classic access token, which proves nothing by itself
/// and is checked with the Graph API (`FacebookGraph`). Both name the same app-scoped user id, so
/// one person reaches one user by either path. Facebook marks no address verified: the identity's
/// e-mail is always unverified, so it neither links nor is linked to.
public struct FacebookNativeCredential: NativeCredentialConnector {
    public var provider: IdentityProvider { verifier.provider }
    public var isConfigured: Bool { true }
    public var takesAccessTokens: Bool { true }
    private let verifier: IdentityTokenVerifier
    private let graph: FacebookGraph
    private let appID: String

    public init(verifier: IdentityTokenVerifier, graph: FacebookGraph, appID: String) {
        self.verifier = verifier
        self.graph = graph
        self.appID = appID
    }

    /// Limited Login's SDK always puts a nonce in its token, as the hex SHA-256 of the raw value
    /// the app gave it: the raw value is required here, and only the hashed form matches.
    static let noncePolicy = NoncePolicy(required: true, acceptUnhashed: false)

    public func identity(
        _ credential: NativeCredential, nonce: String?, for client: OAuthClient?
    ) async throws(IdentityTokenError) -> ExternalIdentity {
        var identity: ExternalIdentity
        switch credential {
        case .idToken(let token):
            guard nonce != nil else {
                throw .incomplete("A Limited Login token needs the raw nonce the app generated, as `nonce`.")
            }
            identity = try await verifier.verify(token, audiences: [appID], nonce: nonce, noncePolicy: Self.noncePolicy, keepingName: true)
        case .accessToken(let token):
            identity = try await self.identity(accessToken: token)
        }
        identity.emailVerified = false
        identity.isPrivateEmail = nil
        return identity
    }

    /// The user a classic access token belongs to, as the Graph API says: the hosted flow's
    /// callback checks the token it redeemed the same way.
    func identity(accessToken: String) async throws(IdentityTokenError) -> ExternalIdentity {
        let user = try await graph.user(accessToken: accessToken)
        var identity = ExternalIdentity(provider: provider.name, subject: user.id, audience: appID, email: user.email, emailVerified: false)
        identity.givenName = user.firstName
        identity.familyName = user.lastName
        return identity
    }
}
