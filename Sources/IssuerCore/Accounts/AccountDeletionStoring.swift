import Foundation

/// What an account's deletion needs of the database (docs/reference.md, "Account deletion").
package protocol AccountDeletionStoring: Sendable {
    /// Deletes the user and writes the audit record in one transaction, queuing (already claimed)
    /// every Apple token it held; nil when there was no such user (or, with `sessionID`, no such
    /// live session of it).
    func delete(userID: UUID, sessionID: UUID?, reason: AccountDeletion.Reason, now: Date) async throws -> [AppleRevocationQueue.Claimed]?
    /// How many of the user's queued Apple revocations have ended.
    func settledRevocations(userID: UUID) async throws -> Int
}
