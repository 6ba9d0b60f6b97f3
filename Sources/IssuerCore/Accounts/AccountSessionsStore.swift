import Foundation
import Postgres

/// The SQL of the user's own list of signed-in devices (docs/reference.md, "Signed-in devices"):
/// the user's live sessions, and revoking one or all but one, each in one statement that names
/// the user, so a session id of another user is never listed or revoked.
struct AccountSessionsStore: Sendable {
    let pool: ConnectionPool

    /// The user's live sessions (not revoked, not expired), newest first.
    func live(userID: UUID, now: Date) async throws -> [AccountSession] {
        try await pool.query("""
            SELECT s.id, s.client_id, s.provider, s.created_at, greatest(s.last_used_at, max(r.created_at)) AS last_used_at, s.user_agent
            FROM sessions s LEFT JOIN refresh_tokens r ON r.session_id = s.id
            WHERE s.user_id = $1 AND s.revoked_at IS NULL AND s.expires_at > $2
            GROUP BY s.id ORDER BY s.created_at DESC
            """, [userID, now]).rows.map { row in
            AccountSession(
                sessionID: try row.decode(column: "id"), clientID: try row.decode(column: "client_id"),
                provider: try row.decodeIfPresent(column: "provider"), createdAt: try row.decode(column: "created_at"),
                lastUsedAt: try row.decode(column: "last_used_at"), userAgent: try row.decodeIfPresent(column: "user_agent"))
        }
    }

    /// Revokes the user's live session `sessionID`; false when it is not one.
    func revoke(sessionID: UUID, userID: UUID, now: Date) async throws -> Bool {
        try await pool.query("""
            UPDATE sessions SET revoked_at = $3, revoked_reason = 'signed out by the user'
            WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL AND expires_at > $3
            """, [sessionID, userID, now]).affectedRows == 1
    }

    /// Revokes every live session of the user but `keeping` ("sign out everywhere else").
    func revokeOthers(userID: UUID, keeping: UUID, now: Date) async throws -> Int {
        try await pool.query("""
            UPDATE sessions SET revoked_at = $3, revoked_reason = 'signed out elsewhere by the user'
            WHERE user_id = $1 AND id <> $2 AND revoked_at IS NULL AND expires_at > $3
            """, [userID, keeping, now]).affectedRows
    }
}

/// One signed-in device as the user sees it: never a token, never an IP address.
public struct AccountSession: Sendable, Equatable {
    /// The session id: the `sid` of its tokens.
    public var sessionID: UUID
    public var clientID: String
    /// The provider it signed in with; nil for a session from before this was recorded.
    public var provider: String?
    public var createdAt: Date
    /// The sign-in or its latest refresh.
    public var lastUsedAt: Date
    public var userAgent: String?
}
