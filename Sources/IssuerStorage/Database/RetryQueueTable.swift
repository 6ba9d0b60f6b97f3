import Foundation
import Postgres

/// The statements every retry queue's table shares (`apple_revocations`, `deletion_notices`;
/// docs/design.md, "Apple and remote parties"): a due row is claimed with `FOR UPDATE SKIP LOCKED`
/// and its next attempt pushed to the caller's lease end, so two processes never send one row at
/// once; a finished row forgets what it was sent with and is pruned in small batches.
package struct RetryQueueTable: Sendable {
    /// Where every statement runs.
    let pool: ConnectionPool
    /// The table: a literal of this module, never input.
    let name: String
    /// The column a finished row forgets (the sealed token, the provider's user id).
    let forgotten: String
    /// What a claim returns.
    let claimedColumns: String

    /// Claims up to `limit` due rows, earliest first, counting an attempt and leaving each alone to
    /// others until `leaseEnd`.
    func claimDue(now: Date, leaseEnd: Date, limit: Int) async throws -> [PostgresRow] {
        try await pool.query("""
            UPDATE \(name) SET attempts = attempts + 1, next_attempt_at = $2
            WHERE id IN (
                SELECT id FROM \(name) WHERE finished_at IS NULL AND next_attempt_at <= $1
                ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
            RETURNING \(claimedColumns)
            """, [now, leaseEnd, limit]).rows
    }

    /// Ends a row with `outcome`, forgetting `forgotten`; a finished row stays as it ended.
    func finish(id: UUID, at now: Date, outcome: String) async throws {
        try await pool.query("""
            UPDATE \(name) SET \(forgotten) = NULL, finished_at = $2, outcome = $3, last_error = NULL
            WHERE id = $1 AND finished_at IS NULL
            """, [id, now, outcome])
    }

    /// Records a failed try and when the next is due, unless the row has finished.
    func reschedule(id: UUID, next: Date, error: String) async throws {
        try await pool.query(
            "UPDATE \(name) SET next_attempt_at = $2, last_error = $3 WHERE id = $1 AND finished_at IS NULL",
            [id, next, error])
    }

    /// Rows not yet finished.
    func depth() async throws -> Int {
        try await pool.query("SELECT count(*) AS pending FROM \(name) WHERE finished_at IS NULL")
            .single?.decode(Int.self, column: "pending") ?? 0
    }

    /// Deletes finished rows that ended before `cutoff`, one batch of at most 500.
    func pruneFinished(before cutoff: Date) async throws {
        try await pool.query("""
            DELETE FROM \(name) WHERE id IN (
                SELECT id FROM \(name) WHERE finished_at < $1 LIMIT 500 FOR UPDATE SKIP LOCKED)
            """, [cutoff])
    }
}
