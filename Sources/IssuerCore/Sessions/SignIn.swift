import Foundation

/// A completed sign-in: who, which session, and, for the native sign-in, its first refresh token.
public struct SignIn: Sendable {
    /// The user, found or created by (provider, subject).
    public var user: UserProfile
    /// The new session: the `sid` of its tokens.
    public var sessionID: UUID
    /// When this sign-in happened: the `auth_time` of its ID tokens.
    public var authTime: Date
    /// The session's hard end: `authTime` + `ISSUER_SESSION_MAX_AGE` (docs/reference.md, "Refresh tokens and sessions").
    public var sessionExpiresAt: Date
    /// Whether this first sign-in joined an existing user by verified e-mail (docs/reference.md, "Linked identities").
    public var joinedByVerifiedEmail = false
    /// The native sign-in's first refresh token; only its hash was stored. Nil for the hosted
    /// flow, whose refresh token is issued when its code is redeemed.
    public var refreshToken: RefreshToken?

    package init(
        user: UserProfile, sessionID: UUID, authTime: Date, sessionExpiresAt: Date, joinedByVerifiedEmail: Bool = false,
        refreshToken: RefreshToken? = nil
    ) {
        self.user = user
        self.sessionID = sessionID
        self.authTime = authTime
        self.sessionExpiresAt = sessionExpiresAt
        self.joinedByVerifiedEmail = joinedByVerifiedEmail
        self.refreshToken = refreshToken
    }
}
