import Foundation
import Postgres

/// Runs the changes of one Google security event token in one transaction, so that recording
/// its `jti` and applying its events commit together (docs/reference.md, "Google's
/// account-protection events").
protocol GoogleRISCStoring: Sendable {
    /// Runs `body` in one transaction: all its changes commit, or none.
    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (any GoogleRISCChanges) throws -> T) async throws -> T
}

/// The statements of one token's events, each inside the transaction `GoogleRISCStoring` opened.
protocol GoogleRISCChanges {
    /// Records the token's `jti`; false when it was recorded before (a redelivery).
    func recordOnce(jti: String, types: String, now: Date) throws -> Bool
    /// The user with that identity, its row locked until the transaction ends; nil when none has it.
    func userID(provider: String, subject: String) throws -> UUID?
    /// Revokes every live session of the user begun by `time`.
    func revokeSessions(userID: UUID, begunBy time: Date, reason: String, now: Date) throws
    /// Marks the identity disabled, unless a later enable or disable was applied.
    func disable(provider: String, subject: String, reason: String?, at time: Date) throws
    /// Clears a disable, unless a later enable or disable was applied.
    func enable(provider: String, subject: String, at time: Date) throws
    /// Records that the provider asks for a credential change.
    func requireCredentialChange(provider: String, subject: String, at time: Date) throws
    /// Removes the identity; answers whether its user has any identity left.
    func unlink(provider: String, subject: String, userID: UUID) throws -> Bool
    /// Deletes the account, queuing its Apple tokens for the worker; false when it was gone.
    func deleteAccount(userID: UUID, now: Date) throws -> Bool
}

/// `GoogleRISCStoring` over PostgreSQL: the received-event ids, `IdentityStatusStore`'s
/// statements, session revocation and account deletion, on one transaction's connection.
struct GoogleRISCStore: GoogleRISCStoring {
    let pool: ConnectionPool

    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (any GoogleRISCChanges) throws -> T) async throws -> T {
        try await pool.transaction { connection in try body(Changes(connection: connection)) }
    }

    /// The statements on the transaction's connection.
    private struct Changes: GoogleRISCChanges {
        let connection: Connection

        func recordOnce(jti: String, types: String, now: Date) throws -> Bool {
            try ReceivedEventStore.record(sender: .google, jti: jti, type: types, on: connection, now: now)
        }

        func userID(provider: String, subject: String) throws -> UUID? {
            try IdentityStatusStore.userID(provider: provider, subject: subject, on: connection)
        }

        func revokeSessions(userID: UUID, begunBy time: Date, reason: String, now: Date) throws {
            try SessionRevocationStore.revoke(userID: userID, begunBy: time, reason: reason, on: connection, at: now)
        }

        func disable(provider: String, subject: String, reason: String?, at time: Date) throws {
            try IdentityStatusStore.disable(provider: provider, subject: subject, reason: reason, at: time, on: connection)
        }

        func enable(provider: String, subject: String, at time: Date) throws {
            try IdentityStatusStore.enable(provider: provider, subject: subject, at: time, on: connection)
        }

        func requireCredentialChange(provider: String, subject: String, at time: Date) throws {
            try IdentityStatusStore.requireCredentialChange(provider: provider, subject: subject, at: time, on: connection)
        }

        func unlink(provider: String, subject: String, userID: UUID) throws -> Bool {
            try IdentityStatusStore.unlink(provider: provider, subject: subject, userID: userID, on: connection)
        }

        func deleteAccount(userID: UUID, now: Date) throws -> Bool {
            try AccountDeletionStore.delete(
                userID: userID, sessionID: nil, reason: .googleAccountPurged, revokeAtApple: true, on: connection, now: now) != nil
        }
    }
}
