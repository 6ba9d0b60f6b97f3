import Foundation
import Postgres

/// Deletes what has expired, in small batches (docs/reference.md, "Refresh tokens and sessions"), so no sweep holds locks for long or
/// bloats one transaction. Safe with many processes: each batch takes rows with
/// `FOR UPDATE SKIP LOCKED`, so two janitors never wait on or double-delete the same rows.
///
/// Nothing still valid is touched: a refresh token goes only after its own expiry, and a session
/// only after its maximum age, both with a margin for clocks that disagree between processes.
public struct SessionJanitor: Sendable {
    /// Rows per statement.
    public var batchSize = 500
    /// How long past expiry a row is kept, against clock skew between processes.
    public var margin: Duration = .seconds(3600)

    private let pool: ConnectionPool

    /// Default batch size and margin; set the properties to change them.
    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    /// One sweep: deletes expired refresh tokens, then expired sessions (with whatever tokens
    /// remain), up to `maxBatches` batches each. Answers the rows deleted.
    @discardableResult
    public func sweep(now: Date, maxBatches: Int = 20) async throws -> (refreshTokens: Int, sessions: Int) {
        let cutoff = now.addingTimeInterval(-margin.timeInterval)
        let tokens = try await deleteInBatches("""
            DELETE FROM refresh_tokens WHERE token_hash IN (
                SELECT token_hash FROM refresh_tokens WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
            """, cutoff: cutoff, maxBatches: maxBatches)
        let sessions = try await deleteInBatches("""
            DELETE FROM sessions WHERE id IN (
                SELECT id FROM sessions WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
            """, cutoff: cutoff, maxBatches: maxBatches)
        // Spent hosted-flow states only matter while the state could still open.
        try await deleteInBatches("""
            DELETE FROM spent_authorization_states WHERE state_hash IN (
                SELECT state_hash FROM spent_authorization_states WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
            """, cutoff: cutoff, maxBatches: maxBatches)
        return (tokens, sessions)
    }

    @discardableResult
    private func deleteInBatches(_ sql: String, cutoff: Date, maxBatches: Int) async throws -> Int {
        var total = 0
        for _ in 0..<maxBatches {
            let deleted = try await pool.query(sql, [cutoff, batchSize]).affectedRows
            total += deleted
            if deleted < batchSize { break }
        }
        return total
    }
}
