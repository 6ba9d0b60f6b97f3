import Foundation

/// What the database knows about a presented refresh token and its session, as the rotation
/// statement returns it: enough to decide the outcome without another query.
public struct RefreshRecord: Sendable, Equatable {
    public var sessionID: UUID
    public var generation: Int
    public var tokenExpiresAt: Date
    /// When the token was rotated, if it was.
    public var spentAt: Date?
    public var successorHash: [UInt8]?
    public var clientID: String
    public var scopes: [String]
    public var nonce: String?
    public var authTime: Date
    public var sessionExpiresAt: Date
    public var revokedAt: Date?
    /// Whether this very statement rotated the token.
    public var rotatedNow: Bool
    public var user: UserProfile
}
