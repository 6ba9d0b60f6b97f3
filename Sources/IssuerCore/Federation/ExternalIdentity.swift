/// Who a verified provider token says signed in.
public struct ExternalIdentity: Sendable, Equatable {
    /// `IdentityProvider.name`.
    public var provider: String
    /// The provider's `sub`: stable for one user of one app team. Never shown as our `sub`.
    public var subject: String
    /// The `aud` the token was issued to (for Apple: the bundle ID or Services ID).
    public var audience: String
    /// The `email` claim, when the provider sent one (for Apple, possibly a relay address).
    public var email: String?
    /// `email_verified`; Apple sends it as a string or a boolean, both understood (docs/reference.md, "Native sign-in").
    public var emailVerified: Bool?
    /// Apple's relay address flag.
    public var isPrivateEmail: Bool?
    /// OIDC Core §3.3.2.11 `c_hash`: binds the token to the authorization code issued beside it.
    public var codeHash: String?
    /// Apple's `transfer_sub` during a team transfer (docs/reference.md, "Apple team transfer").
    public var transferSub: String?
    /// The name the provider's answer carried, where its connector keeps it (Facebook's); a
    /// name the app sends beside Apple's token comes first.
    public var givenName: String?
    public var familyName: String?

    /// Only provider, subject and audience are always known; the rest is what the token carried.
    public init(provider: String, subject: String, audience: String, email: String? = nil, emailVerified: Bool? = nil, isPrivateEmail: Bool? = nil, codeHash: String? = nil) {
        self.provider = provider
        self.subject = subject
        self.audience = audience
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.codeHash = codeHash
    }
}
