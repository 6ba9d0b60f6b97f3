import Foundation
import IssuerCore
import Postgres

/// The `jti` replay memory of DPoP proofs (RFC 9449 §11.1), in PostgreSQL so that every process
/// agrees (docs/reference.md, "DPoP"). One statement records a proof or refuses it, so two
/// processes that receive the same proof at once cannot both accept it.
public struct DPoPReplayStore: DPoPReplayStoring {
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
    static let recordStatement = recording(jkt: "$1", jti: "$2", proofHash: "$3", seenAt: "$4", expiresAt: "$5", resendSince: "$6")

    /// The recording statement over the given parameters: it returns a row when the proof is fresh
    /// (or the accepted resend) and nothing for a replay; with a NULL `jti` it records nothing.
    /// The refresh grant runs it inside its rotation statement (`RefreshRotationStore`), so that a
    /// bound refresh stays one round trip.
    static func recording(jkt: String, jti: String, proofHash: String, seenAt: String, expiresAt: String, resendSince: String) -> String {
        """
        INSERT INTO dpop_proofs AS d (jkt, jti, proof_hash, seen_at, expires_at)
        SELECT \(jkt)::text, \(jti)::text, \(proofHash)::bytea, \(seenAt)::timestamptz, \(expiresAt)::timestamptz
        WHERE \(jti)::text IS NOT NULL
        ON CONFLICT (jkt, jti) DO UPDATE
            SET proof_hash = EXCLUDED.proof_hash,
                seen_at = CASE WHEN d.expires_at < EXCLUDED.seen_at THEN EXCLUDED.seen_at ELSE d.seen_at END,
                expires_at = GREATEST(d.expires_at, EXCLUDED.expires_at)
            WHERE d.expires_at < EXCLUDED.seen_at
               OR (d.proof_hash = EXCLUDED.proof_hash AND d.seen_at >= \(resendSince)::timestamptz)
        RETURNING d.jti
        """
    }

    /// Until when `proof`'s `jti` is remembered: past it, no proof with that `iat` is accepted.
    static func expiry(of proof: DPoPProof, now: Date) -> Date {
        max(proof.issuedAt.addingTimeInterval(DPoPProofVerifier.window + 1), now)
    }

    /// Records `proof` as seen at `now`; false when its `jti` was seen before for its key (a
    /// replay), except for an identical resend first seen no earlier than `resendSince`.
    /// - Parameter resendSince: nil where no resend is a retry (only a refresh has one).
    public func record(_ proof: DPoPProof, now: Date, resendSince: Date?) async throws -> Bool {
        let rows = try await pool.query(
            Self.recordStatement,
            [proof.thumbprint, proof.jwtID, proof.proofHash, now, Self.expiry(of: proof, now: now), resendSince]).rows
        return !rows.isEmpty
    }
}
