import Foundation

/// What the database knows about a presented refresh token and its session, as the rotation
/// statement returns it: its verdict, and enough to answer or to revoke without another query.
public struct RefreshRecord: Sendable, Equatable {
    /// What the statement decided.
    public var verdict: RefreshVerdict
    /// The token's session.
    public var sessionID: UUID
    /// The token's place in its session's lineage: 0 for the sign-in's first token.
    public var generation: Int
    /// When the token was rotated, if it was before this statement.
    public var spentAt: Date?
    /// Hash of the successor an earlier rotation recorded; nil if this statement found it unspent.
    public var successorHash: [UInt8]?
    /// The session's granted scopes.
    public var scopes: [String]
    /// When the user signed in: the `auth_time` of every ID token of the session.
    public var authTime: Date
    /// The session's hard end (`ISSUER_SESSION_MAX_AGE`); no token outlives it.
    public var sessionExpiresAt: Date
    /// The session's user, as the tokens minted from this refresh describe it.
    public var user: UserProfile
    /// The RFC 7638 thumbprint of the DPoP key the session is bound to (docs/reference.md,
    /// "DPoP"), nil for an unbound session: its access tokens carry it as `cnf.jkt`.
    public var dpopThumbprint: String?

    /// Every field, as the statement returns them.
    public init(
        verdict: RefreshVerdict, sessionID: UUID, generation: Int, spentAt: Date?, successorHash: [UInt8]?,
        scopes: [String], authTime: Date, sessionExpiresAt: Date, user: UserProfile, dpopThumbprint: String? = nil
    ) {
        self.verdict = verdict
        self.sessionID = sessionID
        self.generation = generation
        self.spentAt = spentAt
        self.successorHash = successorHash
        self.scopes = scopes
        self.authTime = authTime
        self.sessionExpiresAt = sessionExpiresAt
        self.user = user
        self.dpopThumbprint = dpopThumbprint
    }
}
