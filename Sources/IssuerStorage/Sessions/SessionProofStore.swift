import Foundation
import IssuerCore
import Postgres

/// `SessionProofStoring` over PostgreSQL.
public struct SessionProofStore: SessionProofStoring {
    private let pool: ConnectionPool

    /// Every statement runs on `pool`.
    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    static let statement = """
        SELECT r.session_id, r.spent_at, r.successor_hash,
               CASE
                   WHEN s.revoked_at IS NOT NULL THEN 'revoked'
                   WHEN s.expires_at <= $2 THEN 'session_expired'
                   WHEN r.spent_at IS NOT NULL THEN 'spent'
                   WHEN r.expires_at <= $2 THEN 'expired'
                   ELSE 'current'
               END AS state
        FROM refresh_tokens r JOIN sessions s ON s.id = r.session_id
        WHERE r.token_hash = $1
        """

    /// SQL that is true while the session numbered by parameter `session` is a live session (not
    /// revoked, not expired at parameter `now`) of the user numbered by parameter `user`: the
    /// condition every account change puts in the statement that makes it, so that a session
    /// revoked between the proof and the change proves nothing (docs/reference.md, "Two proofs of one session").
    static func provingSessionIsLive(user: Int, session: Int, now: Int) -> String {
        "EXISTS (SELECT 1 FROM sessions p WHERE p.id = $\(session) AND p.user_id = $\(user) AND p.revoked_at IS NULL AND p.expires_at > $\(now))"
    }

    public func proofRecord(tokenHash: [UInt8], now: Date) async throws -> SessionProofRecord? {
        guard let row = try await pool.query(Self.statement, [tokenHash, now]).single else { return nil }
        let stateText: String = try row.decode(column: "state")
        guard let state = SessionProofRecord.State(rawValue: stateText) else {
            throw PostgresError.decoding("unknown session proof state '\(stateText)'")
        }
        return SessionProofRecord(
            state: state, sessionID: try row.decode(column: "session_id"), spentAt: try row.decodeIfPresent(column: "spent_at"),
            successorHash: try row.decodeIfPresent(column: "successor_hash"))
    }
}
