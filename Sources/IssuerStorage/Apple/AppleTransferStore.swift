import Foundation
import IssuerCore
import Postgres

/// The SQL of an Apple team transfer (docs/reference.md, "Apple team transfer"): Apple
/// identities by stage, the transfer identifier stored beside each, and the re-keying to the
/// receiving team's `sub`, which never takes a `sub` another identity has.
package struct AppleTransferStore: AppleTransferStoring {
    let pool: ConnectionPool
    let provider: String

    /// `provider`: the id Apple's identities have.
    package init(pool: ConnectionPool, provider: String = IdentityProvider.apple.name) {
        self.pool = pool
        self.provider = provider
    }

    /// Identities not yet exported, after `cursor` in `subject` order.
    package func notExported(after cursor: String, limit: Int) async throws -> [(subject: String, clientID: String)] {
        try await pool.query("""
            SELECT subject, audience FROM identities WHERE provider = $1 AND transfer_sub IS NULL AND rekeyed_at IS NULL AND subject > $2
            ORDER BY subject LIMIT $3
            """, [provider, cursor, limit]).rows.map { (try $0.decode(column: "subject"), try $0.decode(column: "audience")) }
    }

    /// Exported identities not yet re-keyed, after `cursor` in `transfer_sub` order.
    package func notRekeyed(after cursor: String, limit: Int) async throws -> [(transferSub: String, clientID: String)] {
        try await pool.query("""
            SELECT transfer_sub, audience FROM identities WHERE provider = $1 AND transfer_sub IS NOT NULL AND rekeyed_at IS NULL
              AND transfer_sub > $2
            ORDER BY transfer_sub LIMIT $3
            """, [provider, cursor, limit]).rows.map { (try $0.decode(column: "transfer_sub"), try $0.decode(column: "audience")) }
    }

    package func recordExport(subject: String, transferSub: String, target: String) async throws {
        try await pool.query(
            "UPDATE identities SET transfer_sub = $3, transfer_target = $4 WHERE provider = $1 AND subject = $2",
            [provider, subject, transferSub, target])
    }

    /// Re-keys the identity exported as `transferSub` to `subject` and the receiving team's relay
    /// address, in one transaction; false when no such identity waits, or another identity has that
    /// `sub` already. The user's own e-mail follows when it was this identity's old address (the
    /// sending team's relay, which Apple no longer forwards), so `/userinfo` and refreshed tokens
    /// carry the new one before the user signs in again; an address another provider gave stays.
    ///
    /// Two moves to one `sub` at once (two exported identities given the same new `sub`, or a first
    /// sign-in with that `sub` writing its identity meanwhile) both pass the statement's check; the
    /// re-keying's update then meets the other row at the primary key, and its identity is left as
    /// it was: false, as the check would have answered, never an error that ends the import or the
    /// sign-in.
    package func rekey(transferSub: String, to subject: String, email: String?, now: Date) async throws -> Bool {
        do {
            return try await rekeyInTransaction(transferSub: transferSub, to: subject, email: email, now: now)
        } catch let error as PostgresError where error.sqlState == .uniqueViolation && error.constraint == "identities_pkey" {
            return false
        }
    }

    private func rekeyInTransaction(transferSub: String, to subject: String, email: String?, now: Date) async throws -> Bool {
        try await pool.transaction { connection in
            // The user's row first, the order account deletion locks them in (user, then its
            // identities by cascade), so that the two never wait on each other in a cycle.
            try connection.query("""
                SELECT u.id FROM users u JOIN identities i ON i.user_id = u.id
                WHERE i.provider = $1 AND i.transfer_sub = $2 AND i.rekeyed_at IS NULL
                FOR UPDATE OF u
                """, [provider, transferSub])
            let row = try connection.query(Self.rekeyStatement, [provider, transferSub, subject, now, email]).single
            return try row?.decode(Int.self, column: "rekeyed") == 1
        }
    }

    /// `$1` provider, `$2` transfer_sub, `$3` the new sub, `$4` now, `$5` the new address or NULL
    /// (an empty one counts as none). A user without an address gets none from here.
    static let rekeyStatement = """
            WITH claimed AS (
                SELECT subject, user_id, email AS old_email FROM identities
                WHERE provider = $1 AND transfer_sub = $2 AND rekeyed_at IS NULL
                  AND NOT EXISTS (SELECT 1 FROM identities WHERE provider = $1 AND subject = $3)
                FOR UPDATE
            ), rekeyed AS (
                UPDATE identities i SET subject = $3, rekeyed_at = $4, email = COALESCE(NULLIF($5::text, ''), i.email)
                FROM claimed c WHERE i.provider = $1 AND i.subject = c.subject
                RETURNING i.user_id
            ), profile AS (
                UPDATE users u SET email = $5
                FROM claimed c, rekeyed r
                WHERE NULLIF($5::text, '') IS NOT NULL AND u.id = c.user_id AND u.email = c.old_email
            )
            SELECT count(*) AS rekeyed FROM rekeyed
            """

    /// How many Apple identities are at each stage.
    package func stages() async throws -> AppleTeamTransfer.Stages {
        guard let row = try await pool.query("""
            SELECT count(*) FILTER (WHERE transfer_sub IS NULL AND rekeyed_at IS NULL) AS not_exported,
                   count(*) FILTER (WHERE transfer_sub IS NOT NULL AND rekeyed_at IS NULL) AS exported,
                   count(*) FILTER (WHERE rekeyed_at IS NOT NULL) AS rekeyed
            FROM identities WHERE provider = $1
            """, [provider]).single else { return AppleTeamTransfer.Stages(notExported: 0, exported: 0, rekeyed: 0) }
        return AppleTeamTransfer.Stages(
            notExported: try row.decode(column: "not_exported"), exported: try row.decode(column: "exported"),
            rekeyed: try row.decode(column: "rekeyed"))
    }
}
