/// Everything a successful provider sign-in brings to the database (docs/reference.md, "Native sign-in").
public struct SignInRequest: Sendable {
    /// Who the verified provider token says signed in.
    public var identity: ExternalIdentity
    /// The name the app forwards: Apple tells it only on the first sign-in.
    public var givenName: String?
    /// Forwarded like `givenName`, on the first sign-in only.
    public var familyName: String?
    /// The registered client the session is opened for.
    public var clientID: String
    /// The resolved scopes, already checked against the client.
    public var scopes: [String]
    /// The raw nonce the client sent, echoed in the ID token (OIDC Core §2).
    public var nonce: String?
    /// Recorded on the session for operators (docs/reference.md, "Refresh tokens and sessions").
    public var userAgent: String?
    /// The client IP after `ISSUER_TRUSTED_PROXIES`, recorded on the session.
    public var clientIP: String?
    /// The thumbprint of the DPoP key the sign-in's proof was signed with: the session is bound to
    /// it (docs/reference.md, "DPoP"); nil for an unbound session.
    public var dpopThumbprint: String?

    /// Only the identity, the client and the scopes are required.
    public init(
        identity: ExternalIdentity, givenName: String? = nil, familyName: String? = nil, clientID: String,
        scopes: [String], nonce: String? = nil, userAgent: String? = nil, clientIP: String? = nil, dpopThumbprint: String? = nil
    ) {
        self.identity = identity
        self.givenName = givenName
        self.familyName = familyName
        self.clientID = clientID
        self.scopes = scopes
        self.nonce = nonce
        self.userAgent = userAgent
        self.clientIP = clientIP
        self.dpopThumbprint = dpopThumbprint
    }
}
