import Foundation
import Postgres

/// What a provider says about one of its accounts, kept on the identity (docs/reference.md, "Google's account-protection events"):
/// disabled and enabled again, a credential change required, or the account gone. Every
/// statement runs inside the caller's transaction, the one that records the event's id.
enum IdentityStatusStore {
    /// The user with this identity, the identity's row locked until the transaction ends; nil
    /// when nobody has it.
    static func userID(provider: String, subject: String, on connection: Connection) throws -> UUID? {
        try connection.query(
            "SELECT user_id FROM identities WHERE provider = $1 AND subject = $2 FOR UPDATE", [provider, subject])
            .single?.decode(column: "user_id")
    }

    /// Marks the identity disabled at `time` with the provider's `reason`, unless an enable or
    /// disable of a later time was applied already. A `hijacking` reason refuses sign-in with it
    /// (the sign-in statement reads it, `SignInStore`).
    static func disable(provider: String, subject: String, reason: String?, at time: Date, on connection: Connection) throws {
        try connection.query("""
            UPDATE identities SET disabled_at = $3, disabled_reason = $4, status_changed_at = $3
            WHERE provider = $1 AND subject = $2 AND (status_changed_at IS NULL OR status_changed_at <= $3)
            """, [provider, subject, time, reason])
    }

    /// Clears a disable, unless an enable or disable of a later time was applied already.
    static func enable(provider: String, subject: String, at time: Date, on connection: Connection) throws {
        try connection.query("""
            UPDATE identities SET disabled_at = NULL, disabled_reason = NULL, status_changed_at = $3
            WHERE provider = $1 AND subject = $2 AND (status_changed_at IS NULL OR status_changed_at <= $3)
            """, [provider, subject, time])
    }

    /// Records that the provider asks for a credential change; the latest time is kept.
    static func requireCredentialChange(provider: String, subject: String, at time: Date, on connection: Connection) throws {
        try connection.query("""
            UPDATE identities SET credential_change_required_at = $3
            WHERE provider = $1 AND subject = $2 AND (credential_change_required_at IS NULL OR credential_change_required_at < $3)
            """, [provider, subject, time])
    }

    /// Removes the identity; answers whether its user has any identity left.
    static func unlink(provider: String, subject: String, userID: UUID, on connection: Connection) throws -> Bool {
        try connection.query("DELETE FROM identities WHERE provider = $1 AND subject = $2", [provider, subject])
        return try connection.query(
            "SELECT EXISTS (SELECT 1 FROM identities WHERE user_id = $1) AS linked", [userID]).single?.decode(column: "linked") ?? false
    }
}
