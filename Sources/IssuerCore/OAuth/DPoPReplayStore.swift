import Foundation
import Postgres

/// The `jti` replay memory of DPoP proofs (RFC 9449 §11.1), in PostgreSQL so that every process
/// agrees (docs/reference.md, "DPoP"). One statement records a proof or refuses it, so two
/// processes that receive the same proof at once cannot both accept it.
public struct DPoPReplayStore: Sendable {
    private let pool: ConnectionPool

    /// Every statement runs on `pool`.
    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    /// `$1` jkt, `$2` jti, `$3` the proof's hash, `$4` now, `$5` when the proof stops being
    /// acceptable, `$6` how far back an identical resend may have been first seen (NULL: never).
    /// A row past its expiry is replaced (the memory covers a proof's lifetime only); a live one
    /// is kept and the statement returns nothing, unless the proof is the very one recorded and
    /// was first seen since `$6`.
    static let recordStatement = """
        INSERT INTO dpop_proofs AS p (jkt, jti, proof_hash, seen_at, expires_at)
        VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (jkt, jti) DO UPDATE
            SET proof_hash = EXCLUDED.proof_hash,
                seen_at = CASE WHEN p.expires_at < EXCLUDED.seen_at THEN EXCLUDED.seen_at ELSE p.seen_at END,
                expires_at = GREATEST(p.expires_at, EXCLUDED.expires_at)
            WHERE p.expires_at < EXCLUDED.seen_at
               OR (p.proof_hash = EXCLUDED.proof_hash AND p.seen_at >= $6::timestamptz)
        RETURNING p.jti
        """

    /// Records `proof` as seen at `now`; false when its `jti` was seen before for its key (a
    /// replay), except for an identical resend first seen no earlier than `resendSince`.
    /// - Parameter resendSince: nil where no resend is a retry (only a refresh has one).
    public func record(_ proof: DPoPProof, now: Date, resendSince: Date?) async throws -> Bool {
        let expiresAt = proof.issuedAt.addingTimeInterval(DPoPProofVerifier.window + 1)
        let rows = try await pool.query(
            Self.recordStatement,
            [proof.thumbprint, proof.jwtID, proof.proofHash, now, max(expiresAt, now), resendSince]).rows
        return !rows.isEmpty
    }
}
