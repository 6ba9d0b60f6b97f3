/// Everything a successful provider sign-in brings to the database (SPEC §3.1).
public struct SignInRequest: Sendable {
    public var identity: ExternalIdentity
    /// The name the app forwards: Apple tells it only on the first sign-in.
    public var givenName: String?
    public var familyName: String?
    public var clientID: String
    public var scopes: [String]
    /// The raw nonce the client sent, echoed in the ID token (OIDC Core §2).
    public var nonce: String?
    public var userAgent: String?
    public var clientIP: String?

    public init(
        identity: ExternalIdentity, givenName: String? = nil, familyName: String? = nil, clientID: String,
        scopes: [String], nonce: String? = nil, userAgent: String? = nil, clientIP: String? = nil
    ) {
        self.identity = identity
        self.givenName = givenName
        self.familyName = familyName
        self.clientID = clientID
        self.scopes = scopes
        self.nonce = nonce
        self.userAgent = userAgent
        self.clientIP = clientIP
    }
}
