import Foundation

/// What revoking sessions asks of storage (docs/reference.md, "Revocation" and "Refresh tokens
/// and sessions"): a whole sign-in at once, so every refresh token of it stops working and its
/// access tokens stop passing `/userinfo`. Revoking twice keeps the first time and reason.
public protocol SessionRevocationStoring: Sendable {
    /// Revokes one session; answers whether it was live.
    @discardableResult
    func revoke(sessionID: UUID, reason: String, at now: Date) async throws -> Bool
    /// Revokes the session of the refresh token with this hash, if the token belongs to
    /// `clientID`; answers whether a live session was revoked.
    @discardableResult
    func revoke(refreshTokenHash: [UInt8], clientID: String, reason: String, at now: Date) async throws -> Bool
    /// Revokes the session if it belongs to `clientID`; answers whether a live session was revoked.
    @discardableResult
    func revoke(sessionID: UUID, clientID: String, reason: String, at now: Date) async throws -> Bool
    /// Revokes every live session of the user; answers how many.
    @discardableResult
    func revokeAll(userID: UUID, reason: String, at now: Date) async throws -> Int
}
