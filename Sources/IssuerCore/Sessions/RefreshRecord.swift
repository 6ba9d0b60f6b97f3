import Foundation

/// What the database knows about a presented refresh token and its session, as the rotation
/// statement returns it: enough to decide the outcome without another query.
public struct RefreshRecord: Sendable, Equatable {
    /// The token's session.
    public var sessionID: UUID
    /// The token's place in its session's lineage: 0 for the sign-in's first token.
    public var generation: Int
    /// When the presented token itself expires.
    public var tokenExpiresAt: Date
    /// When the token was rotated, if it was.
    public var spentAt: Date?
    /// Hash of the successor an earlier rotation recorded; nil if this statement found it unspent.
    public var successorHash: [UInt8]?
    /// The session's client; a token presented by another client is refused.
    public var clientID: String
    /// The session's granted scopes.
    public var scopes: [String]
    /// The nonce the sign-in carried, if any.
    public var nonce: String?
    /// When the user signed in: the `auth_time` of every ID token of the session.
    public var authTime: Date
    /// The session's hard end (`ISSUER_SESSION_MAX_AGE`); no successor outlives it.
    public var sessionExpiresAt: Date
    /// When the session was revoked; nil if it was not.
    public var revokedAt: Date?
    /// Whether this very statement rotated the token.
    public var rotatedNow: Bool
    /// The session's user, as the tokens minted from this refresh describe it.
    public var user: UserProfile
}
