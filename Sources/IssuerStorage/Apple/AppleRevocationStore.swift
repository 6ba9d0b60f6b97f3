import Foundation
import IssuerCore
import Postgres

/// The SQL of Apple refresh tokens waiting to be revoked at Apple (`apple_revocations`). A row
/// is claimed with `FOR UPDATE SKIP LOCKED` and its next attempt pushed past the send's deadline,
/// so two processes never send the same revocation at once (docs/design.md, "Apple and remote parties").
public struct AppleRevocationStore: AppleRevocationStoring, RetryQueueStore {
    private let pool: ConnectionPool
    /// A finished row forgets its sealed token.
    package let table: RetryQueueTable

    /// Every statement runs on `pool`.
    public init(pool: ConnectionPool) {
        self.pool = pool
        table = RetryQueueTable(
            pool: pool, name: "apple_revocations", forgotten: "sealed", claimedColumns: "id, user_id, client_id, sealed, attempts")
    }

    /// Queues every Apple token the user holds, inside the caller's transaction (an account's
    /// deletion, an unlink), already claimed by the caller until `leaseEnd`. The ciphertext moves
    /// as it is: it is bound to the user id, which the row keeps.
    static func enqueue(userID: UUID, on connection: Connection, now: Date, leaseEnd: Date) throws -> [AppleRevocationQueue.Claimed] {
        try connection.query("""
            INSERT INTO apple_revocations (id, user_id, client_id, sealed, created_at, attempts, next_attempt_at)
            SELECT gen_random_uuid(), user_id, client_id, sealed, $2::timestamptz, 1, $3::timestamptz FROM apple_tokens WHERE user_id = $1
            RETURNING id, user_id, client_id, sealed, attempts
            """, [userID, now, leaseEnd]).rows.map(claimed)
    }

    package func queueClaimed(userID: UUID, clientID: String, sealed: [UInt8], now: Date, leaseEnd: Date) async throws -> [AppleRevocationQueue.Claimed] {
        try await pool.query("""
            INSERT INTO apple_revocations (id, user_id, client_id, sealed, created_at, attempts, next_attempt_at)
            VALUES (gen_random_uuid(), $1, $2, $3, $4, 1, $5)
            RETURNING id, user_id, client_id, sealed, attempts
            """, [userID, clientID, sealed, now, leaseEnd]).rows.map(Self.claimed)
    }

    package func claimDue(now: Date, leaseEnd: Date, limit: Int) async throws -> [AppleRevocationQueue.Claimed] {
        try await table.claimDue(now: now, leaseEnd: leaseEnd, limit: limit).map(Self.claimed)
    }

    /// Pending rows first (next due first), then the most recently finished; never the token.
    public func list(limit: Int = 100) async throws -> [AppleRevocationQueue.Entry] {
        try await pool.query("""
            SELECT id, user_id, client_id, created_at, attempts, next_attempt_at, last_error, finished_at, outcome
            FROM apple_revocations
            ORDER BY finished_at IS NOT NULL, CASE WHEN finished_at IS NULL THEN next_attempt_at END, finished_at DESC
            LIMIT $1
            """, [limit]).rows.map { row in
            AppleRevocationQueue.Entry(
                id: try row.decode(column: "id"), userID: try row.decode(column: "user_id"), clientID: try row.decode(column: "client_id"),
                createdAt: try row.decode(column: "created_at"), attempts: try row.decode(column: "attempts"),
                nextAttemptAt: try row.decode(column: "next_attempt_at"), lastError: try row.decodeIfPresent(column: "last_error"),
                finishedAt: try row.decodeIfPresent(column: "finished_at"), outcome: try row.decodeIfPresent(column: "outcome"))
        }
    }

    private static func claimed(_ row: PostgresRow) throws -> AppleRevocationQueue.Claimed {
        AppleRevocationQueue.Claimed(
            id: try row.decode(column: "id"), userID: try row.decode(column: "user_id"), clientID: try row.decode(column: "client_id"),
            sealed: try row.decode(column: "sealed"), attempts: try row.decode(column: "attempts"))
    }
}
