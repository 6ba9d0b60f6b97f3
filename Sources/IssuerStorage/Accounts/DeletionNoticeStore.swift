import Foundation
import IssuerCore
import Postgres

/// The SQL of the notices providers get when an account with their identity is deleted
/// (docs/reference.md, "Account deletion"). Claimed as Apple's revocations are
/// (`FOR UPDATE SKIP LOCKED`, the next attempt pushed past the send's deadline), so two processes
/// never send one notice at once (`RetryQueueTable`).
public struct DeletionNoticeStore: DeletionNoticeStoring, RetryQueueStore {
    private let pool: ConnectionPool
    /// A finished row forgets the provider's user id.
    package let table: RetryQueueTable

    public init(pool: ConnectionPool) {
        self.pool = pool
        table = RetryQueueTable(
            pool: pool, name: "deletion_notices", forgotten: "subject", claimedColumns: "id, user_id, provider, subject, attempts")
    }

    /// Queues a notice for each identity of the user at one of `providers`, inside the caller's
    /// transaction (the deletion's), before the identities go with the user. `providers` are
    /// lowercase ids, so a comma list carries them.
    static func enqueue(userID: UUID, providers: [String], on connection: Connection, now: Date) throws {
        guard !providers.isEmpty else { return }
        try connection.query("""
            INSERT INTO deletion_notices (id, user_id, provider, subject, created_at, next_attempt_at)
            SELECT gen_random_uuid(), user_id, provider, subject, $2, $2 FROM identities
            WHERE user_id = $1 AND provider = ANY(string_to_array($3, ','))
            """, [userID, now, providers.joined(separator: ",")])
    }

    package func claimDue(now: Date, leaseEnd: Date, limit: Int) async throws -> [DeletionNoticeQueue.Claimed] {
        // The person came back with that identity before the notice went: telling the provider now
        // would take the new sign-in's permissions away.
        try await pool.query("""
            UPDATE deletion_notices d SET subject = NULL, finished_at = $1, outcome = 'superseded', last_error = NULL
            WHERE d.finished_at IS NULL AND EXISTS (
                SELECT 1 FROM identities i WHERE i.provider = d.provider AND i.subject = d.subject)
            """, [now])
        return try await table.claimDue(now: now, leaseEnd: leaseEnd, limit: limit).map { row in
            DeletionNoticeQueue.Claimed(
                id: try row.decode(column: "id"), userID: try row.decode(column: "user_id"), provider: try row.decode(column: "provider"),
                subject: try row.decode(column: "subject"), attempts: try row.decode(column: "attempts"))
        }
    }
}
