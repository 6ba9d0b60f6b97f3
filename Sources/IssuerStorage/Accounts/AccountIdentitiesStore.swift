import Foundation
import IssuerCore
import Postgres

/// The SQL of linked identities (docs/reference.md, "Linked identities"). Concurrency is decided
/// by the database: an identity is one row keyed by (provider, subject), and a user has at most
/// one per provider (a unique index), so two devices linking one account to two users, or two
/// accounts of one provider to one user, end with one link and one refusal.
package struct AccountIdentitiesStore: AccountIdentitiesStoring {
    package typealias Linked = AccountIdentities.Linked
    package typealias Unlinked = AccountIdentities.Unlinked

    let pool: ConnectionPool
    /// The provider whose refresh tokens are held in custody (`AppleTokenCustody`), revoked
    /// there when its identity goes.
    let custodyProvider: String
    /// The providers told when their identity goes (`DeletionNoticeQueue.providers`).
    var noticeProviders: [String] = []

    package init(pool: ConnectionPool, custodyProvider: String = AppleTokenCustody.provider, noticeProviders: [String] = []) {
        self.pool = pool
        self.custodyProvider = custodyProvider
        self.noticeProviders = noticeProviders
    }

    /// The user's identities, oldest link first, if `sessionID` is a live session of the user.
    package func identities(userID: UUID, sessionID: UUID, now: Date) async throws -> [LinkedIdentity]? {
        let rows = try await pool.query("""
            SELECT i.provider, i.email, i.email_verified, i.created_at, EXISTS (
                SELECT 1 FROM sessions s WHERE s.id = $2 AND s.user_id = $1 AND s.revoked_at IS NULL AND s.expires_at > $3) AS live
            FROM identities i WHERE i.user_id = $1 ORDER BY i.created_at, i.provider
            """, [userID, sessionID, now]).rows
        guard let first = rows.first, try first.decode(Bool.self, column: "live") else { return nil }
        return try rows.map { row in
            LinkedIdentity(
                provider: try row.decode(column: "provider"), email: try row.decodeIfPresent(column: "email"),
                emailVerified: try row.decodeIfPresent(column: "email_verified"), linkedAt: try row.decode(column: "created_at"))
        }
    }

    /// Links `identity` to the user unless it is anyone's already or the user has that provider,
    /// and only while `sessionID`, the session both proofs named, is live.
    package func link(_ identity: ExternalIdentity, userID: UUID, sessionID: UUID, now: Date) async throws -> Linked {
        for _ in 0..<2 {
            guard let row = try await pool.query("""
                WITH live AS (SELECT \(SessionProofStore.provingSessionIsLive(user: 1, session: 8, now: 5)) AS live),
                owner AS (SELECT user_id FROM identities WHERE provider = $2 AND subject = $3),
                sibling AS (SELECT 1 FROM identities WHERE provider = $2 AND user_id = $1),
                linked AS (
                    INSERT INTO identities (provider, subject, user_id, audience, created_at, last_sign_in_at, email, email_verified)
                    SELECT $2, $3, $1, $4, $5, $5, $6, $7
                    WHERE (SELECT live FROM live) AND NOT EXISTS (SELECT 1 FROM owner) AND NOT EXISTS (SELECT 1 FROM sibling)
                    ON CONFLICT DO NOTHING
                    RETURNING 1)
                SELECT (SELECT live FROM live) AS live, (SELECT user_id FROM owner) AS owner,
                       EXISTS (SELECT 1 FROM sibling) AS provider_taken, EXISTS (SELECT 1 FROM linked) AS linked
                """, [userID, identity.provider, identity.subject, identity.audience, now, identity.email, identity.emailVerified, sessionID]).single
            else { break }
            guard try row.decode(Bool.self, column: "live") else { return .sessionEnded }
            if try row.decode(Bool.self, column: "linked") { return .linked }
            if let owner: UUID = try row.decodeIfPresent(column: "owner") { return owner == userID ? .alreadyLinked : .inUse }
            if try row.decode(Bool.self, column: "provider_taken") { return .providerTaken }
            // A concurrent link won between this statement's snapshot and its insert: look again.
        }
        return .inUse
    }

    /// Unlinks the user's identity of `provider`, never the last one, and only while `sessionID`,
    /// the session both proofs named, is live; Apple's tokens held for the user are queued for
    /// revocation in the same transaction when Apple's identity goes, and a provider told of
    /// deletions gets its notice.
    package func unlink(provider: String, userID: UUID, sessionID: UUID, now: Date) async throws -> Unlinked {
        try await pool.transaction { connection in
            // Locks the user's identities, so two unlinks at once cannot leave none; and decides,
            // as account deletion's first statement does, whether the proving session is still live.
            // A user always has an identity, so no row means the user (and its sessions) are gone.
            let rows = try connection.query("""
                SELECT i.provider, \(SessionProofStore.provingSessionIsLive(user: 1, session: 2, now: 3)) AS live
                FROM identities i WHERE i.user_id = $1 FOR UPDATE OF i
                """, [userID, sessionID, now]).rows
            guard let first = rows.first, try first.decode(Bool.self, column: "live") else { return .sessionEnded }
            let providers = try rows.map { try $0.decode(String.self, column: "provider") }
            guard providers.contains(provider) else { return .notLinked }
            guard providers.count > 1 else { return .lastIdentity }
            // Queued from the identity row before it goes, as a deletion queues it (Facebook's
            // permissions removed: the app no longer has that account).
            try DeletionNoticeStore.enqueue(
                userID: userID, providers: noticeProviders.filter { $0 == provider }, on: connection, now: now)
            try connection.query("DELETE FROM identities WHERE user_id = $1 AND provider = $2", [userID, provider])
            guard provider == custodyProvider else { return .unlinked(claimed: []) }
            let claimed = try AppleRevocationStore.enqueue(
                userID: userID, on: connection, now: now, leaseEnd: now.addingTimeInterval(AppleRevocationQueue.lease))
            try connection.query("DELETE FROM apple_tokens WHERE user_id = $1", [userID])
            return .unlinked(claimed: claimed)
        }
    }
}
