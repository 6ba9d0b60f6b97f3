import Foundation

/// What the grant handlers know when they issue tokens (docs/reference.md, "Native sign-in" and "Token endpoint" and "Tokens and sessions"): who, for which
/// client and session, with which scope, and the user's profile. ``TokenSigner`` turns it into
/// claims, keeping only the profile claims the scope allows.
public struct TokenContents: Sendable, Equatable {
    /// The internal user id, the tokens' `sub` (docs/reference.md, "Access tokens").
    public var subject: String
    /// The client the tokens are for: the access token's `client_id`, the ID token's `aud` (OIDC Core §2, §5.1).
    public var clientID: String
    /// The granted scope tokens (RFC 6749 §3.3), in the order they are written to `scope`.
    public var scopes: [String]
    /// The session, `sid` (docs/reference.md, "Access tokens" and "ID tokens").
    public var sessionID: String
    /// When the user signed in, `auth_time` (OIDC Core §2).
    public var authTime: Date
    /// The session's hard end (`auth_time` + `ISSUER_SESSION_MAX_AGE`): docs/reference.md, "Refresh tokens and sessions", no token
    /// outlives its session, so no `exp` is later than this.
    public var sessionExpiresAt: Date
    /// The raw nonce the client sent, echoed in the ID token (OIDC Core §2).
    public var nonce: String?
    /// The user's profile; only the parts the scope allows reach a token (OIDC Core §2, §5.1).
    public var profile: Profile
    /// Whether an ID token is issued when the scope has `openid`. False only on a refresh for a
    /// client registered with `"id_token_on_refresh": false`: OIDC Core §12.2 lets a refresh answer
    /// omit it, and the answer then costs one signature instead of two.
    public var includesIDToken: Bool
    /// The RFC 7638 thumbprint of the DPoP key the session is bound to, the access token's
    /// `cnf.jkt` (RFC 9449 §6.1, docs/reference.md, "DPoP"); nil for a bearer token.
    public var dpopThumbprint: String?

    /// The user profile claims (OIDC Core §5.1) the issuer knows.
    public struct Profile: Sendable, Equatable {
        /// `email`, released with the `email` scope (OIDC Core §5.4).
        public var email: String?
        /// `email_verified`, released with the `email` scope (OIDC Core §5.4).
        public var emailVerified: Bool?
        /// `name`, released with the `profile` scope (OIDC Core §5.4).
        public var name: String?
        /// `given_name`, released with the `profile` scope (OIDC Core §5.4).
        public var givenName: String?
        /// `family_name`, released with the `profile` scope (OIDC Core §5.4).
        public var familyName: String?

        /// A profile (OIDC Core §5.1); every member may be unknown.
        public init(email: String? = nil, emailVerified: Bool? = nil, name: String? = nil, givenName: String? = nil, familyName: String? = nil) {
            self.email = email
            self.emailVerified = emailVerified
            self.name = name
            self.givenName = givenName
            self.familyName = familyName
        }
    }

    /// Token contents as described (docs/reference.md, "Tokens and sessions").
    public init(
        subject: String, clientID: String, scopes: [String], sessionID: String, authTime: Date, sessionExpiresAt: Date,
        nonce: String? = nil, profile: Profile = Profile(), includesIDToken: Bool = true, dpopThumbprint: String? = nil
    ) {
        self.subject = subject
        self.clientID = clientID
        self.scopes = scopes
        self.sessionID = sessionID
        self.authTime = authTime
        self.sessionExpiresAt = sessionExpiresAt
        self.nonce = nonce
        self.profile = profile
        self.includesIDToken = includesIDToken
        self.dpopThumbprint = dpopThumbprint
    }
}
