import Foundation
import IssuerCore
import Postgres

/// `AccountDeletionStoring` over PostgreSQL, and the audit record operators read back.
public struct AccountDeletionStore: AccountDeletionStoring {
    private let pool: ConnectionPool
    /// The providers told of a deletion (`DeletionNoticeQueue.providers`).
    private let noticeProviders: [String]

    /// Every statement runs on `pool`.
    public init(pool: ConnectionPool, noticeProviders: [String] = []) {
        self.pool = pool
        self.noticeProviders = noticeProviders
    }

    package func delete(userID: UUID, sessionID: UUID?, reason: AccountDeletion.Reason, now: Date) async throws -> [AppleRevocationQueue.Claimed]? {
        try await pool.transaction { [noticeProviders] connection in
            try Self.delete(
                userID: userID, sessionID: sessionID, reason: reason, revokeAtApple: true, noticeProviders: noticeProviders,
                on: connection, now: now)
        }
    }

    /// The transaction's statements, for callers that run them inside a transaction of their own
    /// (a provider's event that records its `jti` in the same one). Nil when there was no such user
    /// (or, with `sessionID`, no such live session). The user's identities at `noticeProviders`
    /// are queued to be told (`DeletionNoticeQueue`), whoever asked for the deletion.
    static func delete(
        userID: UUID, sessionID: UUID?, reason: AccountDeletion.Reason, revokeAtApple: Bool, noticeProviders: [String],
        on connection: Connection, now: Date
    ) throws -> [AppleRevocationQueue.Claimed]? {
        // Locks the user first, so a concurrent sign-in's new session waits for the outcome.
        let found = try connection.query("""
            SELECT 1 FROM users u WHERE u.id = $1 AND ($2::uuid IS NULL OR EXISTS (
                SELECT 1 FROM sessions s WHERE s.id = $2 AND s.user_id = u.id AND s.revoked_at IS NULL AND s.expires_at > $3))
            FOR UPDATE
            """, [userID, sessionID, now]).single
        guard found != nil else { return nil }
        let claimed = revokeAtApple
            ? try AppleRevocationStore.enqueue(userID: userID, on: connection, now: now, leaseEnd: now.addingTimeInterval(AppleRevocationQueue.lease))
            : []
        try DeletionNoticeStore.enqueue(userID: userID, providers: noticeProviders, on: connection, now: now)
        // Identities, sessions, refresh tokens, Apple tokens and pending codes go with it (ON DELETE CASCADE).
        try connection.query("DELETE FROM users WHERE id = $1", [userID])
        try connection.query(
            "INSERT INTO account_deletions (user_id, deleted_at, reason) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO NOTHING",
            [userID, now, reason.rawValue])
        return claimed
    }

    package func settledRevocations(userID: UUID) async throws -> Int {
        try await pool.query(
            "SELECT count(*) AS settled FROM apple_revocations WHERE user_id = $1 AND finished_at IS NOT NULL", [userID])
            .single?.decode(Int.self, column: "settled") ?? 0
    }

    /// When the user was deleted and why, from the audit record; nil when it was not.
    public func deletion(userID: UUID) async throws -> (at: Date, reason: String)? {
        guard let row = try await pool.query("SELECT deleted_at, reason FROM account_deletions WHERE user_id = $1", [userID]).single else {
            return nil
        }
        return (try row.decode(column: "deleted_at"), try row.decode(column: "reason"))
    }
}
