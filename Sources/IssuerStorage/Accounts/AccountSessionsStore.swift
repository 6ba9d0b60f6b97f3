import Foundation
import IssuerCore
import Postgres

/// The SQL of the user's own list of signed-in devices (docs/reference.md, "Signed-in devices"):
/// the user's live sessions, and revoking one or all but one, each in one statement that names
/// the user, so a session id of another user is never listed or revoked, and that checks the
/// proving session is still live, so one revoked since its proof was read revokes nothing.
package struct AccountSessionsStore: AccountSessionsStoring {
    let pool: ConnectionPool

    package init(pool: ConnectionPool) {
        self.pool = pool
    }

    /// Whether session `s` has issued tokens (docs/reference.md, "Signed-in devices": a session is
    /// live once its first tokens were issued). A hosted sign-in opens its session with an
    /// authorization code and issues nothing until that code is redeemed; a native sign-in issues
    /// its tokens in the statement that opens the session, with no code. A code goes only with its
    /// session (ON DELETE CASCADE; the janitor never removes one alone), so this holds for the
    /// session's whole life, unlike the refresh tokens, which the janitor removes once expired.
    static let tokensIssued = """
        NOT EXISTS (SELECT 1 FROM authorization_codes c WHERE c.session_id = s.id AND c.redeemed_at IS NULL)
        """

    /// The user's live sessions (not revoked, not expired, tokens issued), newest first.
    package func live(userID: UUID, now: Date) async throws -> [AccountSession] {
        try await pool.query("""
            SELECT s.id, s.client_id, s.provider, s.created_at, greatest(s.last_used_at, max(r.created_at)) AS last_used_at, s.user_agent
            FROM sessions s LEFT JOIN refresh_tokens r ON r.session_id = s.id
            WHERE s.user_id = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 AND \(Self.tokensIssued)
            GROUP BY s.id ORDER BY s.created_at DESC
            """, [userID, now]).rows.map { row in
            AccountSession(
                sessionID: try row.decode(column: "id"), clientID: try row.decode(column: "client_id"),
                provider: try row.decodeIfPresent(column: "provider"), createdAt: try row.decode(column: "created_at"),
                lastUsedAt: try row.decode(column: "last_used_at"), userAgent: try row.decodeIfPresent(column: "user_agent"))
        }
    }

    /// Revokes the user's live session `sessionID` while `provingSessionID` is live; false when
    /// `sessionID` is not a live session of the user, nil when the proving session is no longer live.
    package func revoke(sessionID: UUID, userID: UUID, provingSessionID: UUID, now: Date) async throws -> Bool? {
        let row = try await pool.query("""
            WITH live AS (SELECT \(SessionProofStore.provingSessionIsLive(user: 2, session: 4, now: 3)) AS live),
            revoked AS (
                UPDATE sessions s SET revoked_at = $3, revoked_reason = 'signed out by the user'
                WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > $3 AND \(Self.tokensIssued)
                  AND (SELECT live FROM live)
                RETURNING 1)
            SELECT (SELECT live FROM live) AS live, EXISTS (SELECT 1 FROM revoked) AS revoked
            """, [sessionID, userID, now, provingSessionID]).single
        guard let row, try row.decode(Bool.self, column: "live") else { return nil }
        return try row.decode(Bool.self, column: "revoked")
    }

    /// Revokes every session of the user but `keeping`, the proving session ("sign out everywhere
    /// else"), while that one is live; nil when it is no longer live. A hosted sign-in whose code
    /// is still unredeemed goes too, so it cannot become a device afterwards.
    package func revokeOthers(userID: UUID, keeping: UUID, now: Date) async throws -> Int? {
        let row = try await pool.query("""
            WITH live AS (SELECT \(SessionProofStore.provingSessionIsLive(user: 1, session: 2, now: 3)) AS live),
            revoked AS (
                UPDATE sessions SET revoked_at = $3, revoked_reason = 'signed out elsewhere by the user'
                WHERE user_id = $1 AND id <> $2 AND revoked_at IS NULL AND expires_at > $3 AND (SELECT live FROM live)
                RETURNING 1)
            SELECT (SELECT live FROM live) AS live, (SELECT count(*) FROM revoked) AS revoked
            """, [userID, keeping, now]).single
        guard let row, try row.decode(Bool.self, column: "live") else { return nil }
        return try row.decode(Int.self, column: "revoked")
    }
}
