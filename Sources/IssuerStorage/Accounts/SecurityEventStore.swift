import Foundation
import IssuerCore
import Postgres

/// `SecurityEventStoring` over PostgreSQL: the received-event ids, what a provider says about an
/// identity (kept on it: disabled and enabled again, a credential change required, or gone),
/// session revocation and account deletion, on one transaction's connection.
package struct SecurityEventStore: SecurityEventStoring {
    let pool: ConnectionPool
    /// The providers told of a deletion (`DeletionNoticeQueue.providers`).
    var noticeProviders: [String] = []

    package init(pool: ConnectionPool, noticeProviders: [String] = []) {
        self.pool = pool
        self.noticeProviders = noticeProviders
    }

    package func inTransaction<T: Sendable>(_ body: @escaping @Sendable (any SecurityEventChanges) throws -> T) async throws -> T {
        try await pool.transaction { [noticeProviders] connection in
            try body(Changes(connection: connection, noticeProviders: noticeProviders))
        }
    }

    /// The statements on the transaction's connection.
    private struct Changes: SecurityEventChanges {
        let connection: Connection
        let noticeProviders: [String]

        func recordOnce(sender: String, id: String, types: String, now: Date) throws -> Bool {
            try ReceivedEventStore.record(sender: sender, jti: id, type: types, on: connection, now: now)
        }

        func userID(provider: String, subject: String) throws -> UUID? {
            try connection.query(
                "SELECT user_id FROM identities WHERE provider = $1 AND subject = $2 FOR UPDATE", [provider, subject])
                .single?.decode(column: "user_id")
        }

        func revokeSessions(userID: UUID, begunBy time: Date, reason: String, now: Date) throws {
            try SessionRevocationStore.revoke(userID: userID, begunBy: time, reason: reason, on: connection, at: now)
        }

        func revokeSessions(userID: UUID, through provider: String, begunBy time: Date, reason: String, now: Date) throws {
            try SessionRevocationStore.revoke(userID: userID, begunBy: time, reason: reason, on: connection, at: now, provider: provider)
        }

        func dropHeldGrants(userID: UUID, keptBy time: Date) throws {
            // Only Apple's are kept. As with sessions, at `created_at`'s millisecond precision: a
            // token or code kept for a sign-in after the event stays.
            try connection.query("DELETE FROM apple_tokens WHERE user_id = $1 AND date_trunc('milliseconds', created_at) <= $2", [userID, time])
            try connection.query("DELETE FROM apple_code_redemptions WHERE user_id = $1 AND date_trunc('milliseconds', created_at) <= $2", [userID, time])
        }

        // A disable or enable delivered late never undoes a later one: both keep `status_changed_at`.
        // A `hijacking` reason refuses sign-in with the identity (the sign-in statement reads it, `SignInStore`).
        func disable(provider: String, subject: String, reason: String?, at time: Date) throws {
            try connection.query("""
                UPDATE identities SET disabled_at = $3, disabled_reason = $4, status_changed_at = $3
                WHERE provider = $1 AND subject = $2 AND (status_changed_at IS NULL OR status_changed_at <= $3)
                """, [provider, subject, time, reason])
        }

        func enable(provider: String, subject: String, at time: Date) throws {
            try connection.query("""
                UPDATE identities SET disabled_at = NULL, disabled_reason = NULL, status_changed_at = $3
                WHERE provider = $1 AND subject = $2 AND (status_changed_at IS NULL OR status_changed_at <= $3)
                """, [provider, subject, time])
        }

        func setEmailForwarding(userID: UUID, enabled: Bool, at time: Date) throws {
            try connection.query("""
                UPDATE users SET email_forwarding = $2, email_forwarding_changed_at = $3
                WHERE id = $1 AND (email_forwarding_changed_at IS NULL OR email_forwarding_changed_at <= $3)
                """, [userID, enabled ? "enabled" : "disabled", time])
        }

        func requireCredentialChange(provider: String, subject: String, at time: Date) throws {
            try connection.query("""
                UPDATE identities SET credential_change_required_at = $3
                WHERE provider = $1 AND subject = $2 AND (credential_change_required_at IS NULL OR credential_change_required_at < $3)
                """, [provider, subject, time])
        }

        func clearProfile(fromProvider provider: String, subject: String, userID: UUID, now: Date) throws {
            try connection.query("""
                UPDATE users u SET given_name = NULL, family_name = NULL, updated_at = $4,
                    email = CASE WHEN u.email IS NOT DISTINCT FROM gone.email THEN other.email ELSE u.email END,
                    email_verified = CASE WHEN u.email IS NOT DISTINCT FROM gone.email THEN other.email_verified ELSE u.email_verified END,
                    is_private_email = CASE WHEN u.email IS NOT DISTINCT FROM gone.email THEN NULL ELSE u.is_private_email END
                FROM (SELECT email FROM identities WHERE provider = $2 AND subject = $3) gone
                LEFT JOIN LATERAL (
                    SELECT email, email_verified FROM identities
                    WHERE user_id = $1 AND NOT (provider = $2 AND subject = $3)
                    ORDER BY last_sign_in_at DESC NULLS LAST LIMIT 1) other ON true
                WHERE u.id = $1
                """, [userID, provider, subject, now])
        }

        func unlink(provider: String, subject: String, userID: UUID) throws -> Bool {
            try connection.query("DELETE FROM identities WHERE provider = $1 AND subject = $2", [provider, subject])
            return try connection.query(
                "SELECT EXISTS (SELECT 1 FROM identities WHERE user_id = $1) AS linked", [userID]).single?.decode(column: "linked") ?? false
        }

        func deleteAccount(userID: UUID, reason: AccountDeletion.Reason, revokeHeldTokens: Bool, now: Date) throws -> Bool {
            try AccountDeletionStore.delete(
                userID: userID, sessionID: nil, reason: reason, revokeAtApple: revokeHeldTokens, noticeProviders: noticeProviders,
                on: connection, now: now) != nil
        }
    }
}
