import Foundation
import IssuerCore
import Postgres

/// `SessionJanitorStoring` over PostgreSQL. Each batch takes its rows with
/// `FOR UPDATE SKIP LOCKED`, so two janitors never wait on or double-delete the same rows.
package struct SessionJanitorStore: SessionJanitorStoring {
    let pool: ConnectionPool

    package init(pool: ConnectionPool) {
        self.pool = pool
    }

    package func deleteExpired(_ rows: ExpiredRows, before cutoff: Date, limit: Int) async throws -> Int {
        try await pool.query(Self.statement(rows), [cutoff, limit]).affectedRows
    }

    private static func statement(_ rows: ExpiredRows) -> String {
        switch rows {
        case .refreshTokens:
            """
            DELETE FROM refresh_tokens WHERE token_hash IN (
                SELECT token_hash FROM refresh_tokens WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
            """
        case .sessions:
            """
            DELETE FROM sessions WHERE id IN (
                SELECT id FROM sessions WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
            """
        case .spentAuthorizationStates:
            """
            DELETE FROM spent_authorization_states WHERE state_hash IN (
                SELECT state_hash FROM spent_authorization_states WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
            """
        case .dpopProofs:
            """
            DELETE FROM dpop_proofs WHERE (jkt, jti) IN (
                SELECT jkt, jti FROM dpop_proofs WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
            """
        }
    }
}
