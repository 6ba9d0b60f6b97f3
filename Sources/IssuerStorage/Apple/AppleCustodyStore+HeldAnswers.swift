import Foundation
import IssuerCore
import Postgres

/// The SQL of Apple's answers held unverified (docs/reference.md, "Apple token custody"): an
/// answer whose `id_token` could not be verified because Apple's keys could not be fetched waits
/// in `apple_held_answers`, sealed, until a worker can verify it, then is kept or revoked.
extension AppleCustodyStore {
    /// Holds `sealedAnswer`; a pending code it answered ends in the same statement, so the code is
    /// never redeemed twice and the answer never lost between the two.
    package func hold(
        sealedAnswer: [UInt8], userID: UUID, clientID: String, received: Date, nextAttempt: Date, reason: String, pendingID: UUID?
    ) async throws {
        try await pool.query("""
            WITH done AS (DELETE FROM apple_code_redemptions WHERE id = $7::uuid)
            INSERT INTO apple_held_answers (id, user_id, client_id, sealed_answer, received_at, attempts, next_attempt_at, last_error)
            VALUES (gen_random_uuid(), $1::uuid, $2::text, $3::bytea, $4::timestamptz, 0, $5::timestamptz, $6::text)
            """, [userID, clientID, sealedAnswer, received, nextAttempt, reason, pendingID])
    }

    /// Claims the next due answer (`FOR UPDATE SKIP LOCKED`), leaving it alone to others until `leaseEnd`.
    package func claimNextHeld(now: Date, leaseEnd: Date) async throws -> Held? {
        guard let row = try await pool.query("""
            UPDATE apple_held_answers SET attempts = attempts + 1, next_attempt_at = $2
            WHERE id = (
                SELECT id FROM apple_held_answers WHERE next_attempt_at <= $1
                ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, user_id, client_id, sealed_answer, received_at, attempts
            """, [now, leaseEnd]).single
        else { return nil }
        return Held(
            id: try row.decode(column: "id"), userID: try row.decode(column: "user_id"), clientID: try row.decode(column: "client_id"),
            sealedAnswer: try row.decode(column: "sealed_answer"), receivedAt: try row.decode(column: "received_at"),
            attempts: try row.decode(column: "attempts"))
    }

    /// Ends a held answer that verified and stores its token for the user when `appleSubject` is
    /// theirs, as `keep` does, in one statement.
    package func keepHeld(_ held: Held, sealed: [UInt8], appleSubject: String, now: Date) async throws -> Kept {
        try await keep(
            endingRow: held.id, of: "apple_held_answers", userID: held.userID, sealed: sealed, appleSubject: appleSubject, now: now)
    }

    /// Ends a held answer without a token.
    package func dropHeld(id: UUID) async throws {
        try await pool.query("DELETE FROM apple_held_answers WHERE id = $1", [id])
    }

    /// Schedules the next verification of a held answer.
    package func rescheduleHeld(id: UUID, next: Date, reason: String) async throws {
        try await pool.query("UPDATE apple_held_answers SET next_attempt_at = $2, last_error = $3 WHERE id = $1", [id, next, reason])
    }
}
