import Foundation
import IssuerCore
import Postgres

/// The SQL of Apple token custody (docs/reference.md, "Apple token custody"): Apple refresh
/// tokens held per (user, Apple client), and codes waiting to be redeemed in the background.
///
/// A token is stored only for the user the Apple account belongs to: every statement that keeps
/// one requires the `identities` row (`apple`, the `sub` of Apple's own `id_token`) of that user,
/// so a code that is another Apple account's is never held for this user, and a user deleted
/// meanwhile holds nothing. Either way the caller revokes what it could not keep.
package struct AppleCustodyStore: AppleCustodyStoring {
    package typealias Pending = AppleTokenCustody.Pending
    package typealias Held = AppleTokenCustody.Held
    package typealias Kept = AppleTokenCustody.Kept

    let pool: ConnectionPool
    /// The provider name identities carry for Apple.
    let provider: String

    package init(pool: ConnectionPool, provider: String = AppleTokenCustody.provider) {
        self.pool = pool
        self.provider = provider
    }

    /// Stores `sealed` as the user's Apple token for `clientID` when `appleSubject` is theirs.
    package func keep(sealed: [UInt8], userID: UUID, clientID: String, appleSubject: String, now: Date) async throws -> Kept {
        let row = try await pool.query("""
            WITH owner AS (
                -- Locked, so an unlink of this identity (which queues the user's Apple tokens)
                -- either sees this token or makes this statement see the identity gone.
                SELECT user_id FROM identities WHERE provider = $5 AND subject = $6 AND user_id = $1 FOR KEY SHARE
            ), kept AS (
                INSERT INTO apple_tokens (user_id, client_id, sealed, created_at)
                SELECT $1::uuid, $2::text, $3::bytea, $4::timestamptz FROM owner
                ON CONFLICT (user_id, client_id) DO UPDATE SET sealed = EXCLUDED.sealed, created_at = EXCLUDED.created_at
                RETURNING 1)
            SELECT EXISTS (SELECT 1 FROM kept) AS kept, EXISTS (SELECT 1 FROM users WHERE id = $1) AS user_exists
            """, [userID, clientID, sealed, now, provider, appleSubject]).single
        guard let row else { return .userGone }
        if try row.decode(Bool.self, column: "kept") { return .kept }
        return try row.decode(Bool.self, column: "user_exists") ? .notTheirs : .userGone
    }

    /// Queues a code Apple could not redeem now, unless the user is gone already.
    package func queue(
        sealedCode: [UInt8], userID: UUID, clientID: String, redirectURI: String?, received: Date, expiresAt: Date,
        nextAttempt: Date, reason: String
    ) async throws {
        try await pool.query("""
            INSERT INTO apple_code_redemptions (id, user_id, client_id, redirect_uri, sealed_code, created_at, expires_at, attempts, next_attempt_at, last_error)
            SELECT gen_random_uuid(), $1::uuid, $2::text, $3::text, $4::bytea, $5::timestamptz, $6::timestamptz, 1, $7::timestamptz, $8::text
            WHERE EXISTS (SELECT 1 FROM users WHERE id = $1)
            """, [userID, clientID, redirectURI, sealedCode, received, expiresAt, nextAttempt, reason])
    }

    /// Drops codes past their lifetime; answers their users.
    package func dropExpired(now: Date) async throws -> [UUID] {
        // A code claimed by a worker (its lease running) is that worker's to settle.
        try await pool.query(
            "DELETE FROM apple_code_redemptions WHERE expires_at <= $1 AND next_attempt_at <= $1 RETURNING user_id", [now]).rows
            .map { try $0.decode(UUID.self, column: "user_id") }
    }

    /// Claims the next due code (`FOR UPDATE SKIP LOCKED`), leaving it alone to others until `leaseEnd`.
    package func claimNext(now: Date, leaseEnd: Date) async throws -> Pending? {
        guard let row = try await pool.query("""
            UPDATE apple_code_redemptions SET attempts = attempts + 1, next_attempt_at = $2
            WHERE id = (
                SELECT id FROM apple_code_redemptions WHERE next_attempt_at <= $1 AND expires_at > $1
                ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, user_id, client_id, redirect_uri, sealed_code, attempts, expires_at
            """, [now, leaseEnd]).single
        else { return nil }
        return Pending(
            id: try row.decode(column: "id"), userID: try row.decode(column: "user_id"), clientID: try row.decode(column: "client_id"),
            redirectURI: try row.decodeIfPresent(column: "redirect_uri"), sealedCode: try row.decode(column: "sealed_code"),
            attempts: try row.decode(column: "attempts"), expiresAt: try row.decode(column: "expires_at"))
    }

    /// Ends a pending code whose redemption succeeded, storing the token as `keep` does, in one statement.
    package func keepPending(_ pending: Pending, sealed: [UInt8], appleSubject: String, now: Date) async throws -> Kept {
        try await keep(
            endingRow: pending.id, of: "apple_code_redemptions", userID: pending.userID, sealed: sealed, appleSubject: appleSubject, now: now)
    }

    /// Ends the row `id` of `table` (a pending code, a held answer, both for `userID`) and stores
    /// its token for the user when `appleSubject` is theirs, in one statement. A row already gone
    /// while its user exists was settled by another process (which decided: nothing to revoke
    /// here); gone with its user (a pending code goes with its user's deletion), the user is gone.
    package func keep(
        endingRow id: UUID, of table: StaticString, userID: UUID, sealed: [UInt8], appleSubject: String, now: Date
    ) async throws -> Kept {
        let row = try await pool.query("""
            WITH done AS (DELETE FROM \(table) WHERE id = $1 RETURNING user_id, client_id),
            owner AS (
                SELECT identities.user_id FROM identities, done
                WHERE provider = $4 AND subject = $5 AND identities.user_id = done.user_id FOR KEY SHARE OF identities
            ),
            kept AS (
                INSERT INTO apple_tokens (user_id, client_id, sealed, created_at)
                SELECT done.user_id, done.client_id, $2::bytea, $3::timestamptz FROM done, owner
                ON CONFLICT (user_id, client_id) DO UPDATE SET sealed = EXCLUDED.sealed, created_at = EXCLUDED.created_at
                RETURNING 1)
            SELECT EXISTS (SELECT 1 FROM done) AS ended, EXISTS (SELECT 1 FROM kept) AS kept,
                EXISTS (SELECT 1 FROM users WHERE id = $6) AS user_exists
            """, [id, sealed, now, provider, appleSubject, userID]).single
        guard let row else { return .userGone }
        let userExists = try row.decode(Bool.self, column: "user_exists")
        guard try row.decode(Bool.self, column: "ended") else { return userExists ? .settledElsewhere : .userGone }
        if try row.decode(Bool.self, column: "kept") { return .kept }
        return userExists ? .notTheirs : .userGone
    }

    /// Ends a pending code without a token.
    package func dropPending(id: UUID) async throws {
        try await pool.query("DELETE FROM apple_code_redemptions WHERE id = $1", [id])
    }

    /// Schedules the next try of a pending code.
    package func reschedule(id: UUID, next: Date, reason: String) async throws {
        try await pool.query("UPDATE apple_code_redemptions SET next_attempt_at = $2, last_error = $3 WHERE id = $1", [id, next, reason])
    }
}
