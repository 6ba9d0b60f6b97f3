import Foundation
import Postgres

/// Runs the changes of one Apple notification in one transaction, so that recording its `jti`
/// and applying it commit together (docs/reference.md, "Apple notifications").
protocol AppleNotificationStoring: Sendable {
    /// Runs `body` in one transaction: all its changes commit, or none.
    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (any AppleNotificationChanges) throws -> T) async throws -> T
}

/// The statements of one notification, each inside the transaction `AppleNotificationStoring` opened.
protocol AppleNotificationChanges {
    /// Records the event's `jti`; false when it was recorded before (a redelivery).
    func recordOnce(jti: String, type: String, now: Date) throws -> Bool
    /// The user with that identity; nil when none has it.
    func userID(provider: String, subject: String) throws -> UUID?
    /// Stores whether Apple's relay forwards e-mail, unless a later change is stored already.
    func setEmailForwarding(userID: UUID, enabled: Bool, at time: Date) throws
    /// Ends the Apple consent the user gave by `time`: the Apple sessions begun by then are
    /// revoked, and the Apple tokens and codes kept by then are dropped.
    func revokeConsent(userID: UUID, by time: Date, now: Date) throws
    /// Deletes the account, sending nothing to Apple (Apple deleted it first).
    func deleteAccount(userID: UUID, now: Date) throws
}

/// `AppleNotificationStoring` over PostgreSQL.
struct AppleNotificationStore: AppleNotificationStoring {
    let pool: ConnectionPool

    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (any AppleNotificationChanges) throws -> T) async throws -> T {
        try await pool.transaction { connection in try body(Changes(connection: connection)) }
    }

    /// The statements on the transaction's connection.
    private struct Changes: AppleNotificationChanges {
        let connection: Connection

        func recordOnce(jti: String, type: String, now: Date) throws -> Bool {
            try ReceivedEventStore.record(sender: .apple, jti: jti, type: type, on: connection, now: now)
        }

        func userID(provider: String, subject: String) throws -> UUID? {
            try connection.query("SELECT user_id FROM identities WHERE provider = $1 AND subject = $2", [provider, subject])
                .single?.decode(UUID.self, column: "user_id")
        }

        func setEmailForwarding(userID: UUID, enabled: Bool, at time: Date) throws {
            // An older event delivered late never overwrites a newer one.
            try connection.query("""
                UPDATE users SET email_forwarding = $2, email_forwarding_changed_at = $3
                WHERE id = $1 AND (email_forwarding_changed_at IS NULL OR email_forwarding_changed_at <= $3)
                """, [userID, enabled ? "enabled" : "disabled", time])
        }

        func revokeConsent(userID: UUID, by time: Date, now: Date) throws {
            // Every session of the user that began by the event (at `event_time`'s millisecond
            // precision), whichever provider signed it in, as Google's security events do: a
            // sign-in after it is a new consent.
            try SessionRevocationStore.revoke(userID: userID, begunBy: time, reason: "apple consent revoked", on: connection, at: now)
            // Apple has already ended this authorization: there is nothing left to revoke there.
            // As with sessions: a token or code kept for a sign-in after the event stays.
            try connection.query("DELETE FROM apple_tokens WHERE user_id = $1 AND date_trunc('milliseconds', created_at) <= $2", [userID, time])
            try connection.query("DELETE FROM apple_code_redemptions WHERE user_id = $1 AND date_trunc('milliseconds', created_at) <= $2", [userID, time])
        }

        func deleteAccount(userID: UUID, now: Date) throws {
            _ = try AccountDeletionStore.delete(
                userID: userID, sessionID: nil, reason: .appleAccountDeleted, revokeAtApple: false, on: connection, now: now)
        }
    }
}
