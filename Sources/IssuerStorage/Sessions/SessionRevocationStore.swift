import Foundation
import IssuerCore
import Postgres

/// The SQL that revokes sessions: a whole sign-in at once, so every refresh token of it stops working and its
/// access tokens stop passing `/userinfo` (docs/reference.md, "Revocation" and "Refresh tokens and sessions"). Revoking twice keeps the first
/// time and reason.
public struct SessionRevocationStore: SessionRevocationStoring {
    private let pool: ConnectionPool

    /// Every statement runs on `pool`.
    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    /// Revokes one session; answers whether it was live.
    @discardableResult
    public func revoke(sessionID: UUID, reason: String, at now: Date) async throws -> Bool {
        try await pool.query(
            "UPDATE sessions SET revoked_at = $2, revoked_reason = $3 WHERE id = $1 AND revoked_at IS NULL",
            [sessionID, now, reason]).affectedRows == 1
    }

    /// Revokes the session of the refresh token with this hash, if the token belongs to
    /// `clientID`; answers whether a live session was revoked.
    @discardableResult
    public func revoke(refreshTokenHash: [UInt8], clientID: String, reason: String, at now: Date) async throws -> Bool {
        try await pool.query("""
            UPDATE sessions s SET revoked_at = $3, revoked_reason = $4
            FROM refresh_tokens r
            WHERE r.token_hash = $1 AND s.id = r.session_id AND s.client_id = $2 AND s.revoked_at IS NULL
            """, [refreshTokenHash, clientID, now, reason]).affectedRows == 1
    }

    /// Revokes one session if it belongs to `clientID`.
    @discardableResult
    public func revoke(sessionID: UUID, clientID: String, reason: String, at now: Date) async throws -> Bool {
        try await pool.query(
            "UPDATE sessions SET revoked_at = $3, revoked_reason = $4 WHERE id = $1 AND client_id = $2 AND revoked_at IS NULL",
            [sessionID, clientID, now, reason]).affectedRows == 1
    }

    /// Revokes, inside the caller's transaction, every live session of a user that began by
    /// `time` (at millisecond precision): a provider's word that it ended the user's sessions
    /// reaches those, while a sign-in after it is a new one (docs/reference.md, "Apple notifications" `consent-revoked`,
    /// and "Google's account-protection events"), whichever provider signed each in. Answers how many.
    @discardableResult
    static func revoke(
        userID: UUID, begunBy time: Date, reason: String, on connection: Connection, at now: Date, provider: String? = nil
    ) throws -> Int {
        try connection.query("""
            UPDATE sessions SET revoked_at = $2, revoked_reason = $3
            WHERE user_id = $1 AND revoked_at IS NULL AND date_trunc('milliseconds', created_at) <= $4
              AND ($5::text IS NULL OR provider = $5)
            """, [userID, now, reason, time, provider]).affectedRows
    }

    /// Revokes every live session of a user; answers how many.
    @discardableResult
    public func revokeAll(userID: UUID, reason: String, at now: Date) async throws -> Int {
        try await pool.query(
            "UPDATE sessions SET revoked_at = $2, revoked_reason = $3 WHERE user_id = $1 AND revoked_at IS NULL",
            [userID, now, reason]).affectedRows
    }
}
