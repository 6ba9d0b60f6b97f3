import Foundation
import IssuerCore
import Postgres

/// The SQL of the notices providers get when an account with their identity is deleted
/// (docs/reference.md, "Account deletion"). Claimed as Apple's revocations are
/// (`FOR UPDATE SKIP LOCKED`, the next attempt pushed past the send's deadline), so two processes
/// never send one notice at once.
public struct DeletionNoticeStore: DeletionNoticeStoring {
    private let pool: ConnectionPool

    public init(pool: ConnectionPool) {
        self.pool = pool
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
        return try await pool.query("""
            UPDATE deletion_notices SET attempts = attempts + 1, next_attempt_at = $2
            WHERE id IN (
                SELECT id FROM deletion_notices WHERE finished_at IS NULL AND next_attempt_at <= $1
                ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
            RETURNING id, user_id, provider, subject, attempts
            """, [now, leaseEnd, limit]).rows.map { row in
            DeletionNoticeQueue.Claimed(
                id: try row.decode(column: "id"), userID: try row.decode(column: "user_id"), provider: try row.decode(column: "provider"),
                subject: try row.decode(column: "subject"), attempts: try row.decode(column: "attempts"))
        }
    }

    package func finish(id: UUID, at now: Date, outcome: String) async throws {
        try await pool.query("""
            UPDATE deletion_notices SET subject = NULL, finished_at = $2, outcome = $3, last_error = NULL
            WHERE id = $1 AND finished_at IS NULL
            """, [id, now, outcome])
    }

    package func reschedule(id: UUID, next: Date, error: String) async throws {
        try await pool.query(
            "UPDATE deletion_notices SET next_attempt_at = $2, last_error = $3 WHERE id = $1 AND finished_at IS NULL",
            [id, next, error])
    }

    package func depth() async throws -> Int {
        try await pool.query("SELECT count(*) AS pending FROM deletion_notices WHERE finished_at IS NULL")
            .single?.decode(Int.self, column: "pending") ?? 0
    }

    package func pruneFinished(before cutoff: Date) async throws {
        try await pool.query("""
            DELETE FROM deletion_notices WHERE id IN (
                SELECT id FROM deletion_notices WHERE finished_at < $1 LIMIT 500 FOR UPDATE SKIP LOCKED)
            """, [cutoff])
    }
}
