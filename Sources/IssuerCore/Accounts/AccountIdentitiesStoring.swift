import Foundation

/// What linking and unlinking identities ask of storage (docs/reference.md, "Linked identities"),
/// with the database deciding: an identity is anyone's at most once, and a user has at most one
/// per provider, so of two racing links one wins and one is refused. Every change names the
/// proving session and happens only while it is live.
package protocol AccountIdentitiesStoring: Sendable {
    /// The user's identities, oldest link first, if `sessionID` is a live session of the user.
    func identities(userID: UUID, sessionID: UUID, now: Date) async throws -> [LinkedIdentity]?
    /// Links `identity` to the user unless it is anyone's already or the user has that provider,
    /// and only while `sessionID`, the session both proofs named, is live.
    func link(_ identity: ExternalIdentity, userID: UUID, sessionID: UUID, now: Date) async throws -> AccountIdentities.Linked
    /// Removes the user's identity of `provider` unless it is their last, while `sessionID` is
    /// live; the custody provider's held tokens are queued for revocation in the same transaction.
    func unlink(provider: String, userID: UUID, sessionID: UUID, now: Date) async throws -> AccountIdentities.Unlinked
}
