import Foundation
import IssuerCore
import Postgres

/// Reads users for the endpoints that answer claims about them (docs/reference.md, "UserInfo").
public struct UserStore: UserStoring {
    private let pool: ConnectionPool

    /// Every query runs on `pool`.
    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    static let liveSessionUserStatement = """
        SELECT u.id AS user_id, u.email, u.email_verified, u.given_name, u.family_name
        FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > $3
        """

    /// The user as it is stored now, if `sessionID` is theirs and still live at `now` (not
    /// revoked, not expired): one indexed lookup. Nil for a revoked, expired or deleted session,
    /// or a session of another user.
    public func user(id userID: UUID, liveSession sessionID: UUID, at now: Date) async throws -> UserProfile? {
        guard let row = try await pool.query(Self.liveSessionUserStatement, [sessionID, userID, now]).single else { return nil }
        return try UserProfile(row: row)
    }
}
