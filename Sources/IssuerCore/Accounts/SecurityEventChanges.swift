import Foundation

/// The statements of one delivery, each inside the transaction `SecurityEventStoring` opened: one
/// per `SecurityEvent.Effect`, whichever provider sent it.
package protocol SecurityEventChanges {
    /// Records the delivery's id under its sender, with the types of its events; false when it
    /// was recorded before (a redelivery: nothing to apply).
    func recordOnce(sender: String, id: String, types: String, now: Date) throws -> Bool
    /// The user with that identity, the identity's row locked until the transaction ends; nil
    /// when nobody has it.
    func userID(provider: String, subject: String) throws -> UUID?
    /// Revokes every live session of the user begun by `time`.
    func revokeSessions(userID: UUID, begunBy time: Date, reason: String, now: Date) throws
    /// Revokes the user's live sessions begun through `provider` by `time`.
    func revokeSessions(userID: UUID, through provider: String, begunBy time: Date, reason: String, now: Date) throws
    /// Drops the provider tokens and codes kept for the user by `time`.
    func dropHeldGrants(userID: UUID, keptBy time: Date) throws
    /// Marks the identity disabled, unless a later enable or disable was applied.
    func disable(provider: String, subject: String, reason: String?, at time: Date) throws
    /// Clears a disable, unless a later enable or disable was applied.
    func enable(provider: String, subject: String, at time: Date) throws
    /// Records whether the provider's relay forwards e-mail, unless a later change is recorded.
    func setEmailForwarding(userID: UUID, enabled: Bool, at time: Date) throws
    /// Records that the provider asks for a credential change.
    func requireCredentialChange(provider: String, subject: String, at time: Date) throws
    /// Clears from the user's profile what the identity supplied: the name, and its e-mail
    /// (replaced by the user's most recently used other identity's).
    func clearProfile(fromProvider provider: String, subject: String, userID: UUID, now: Date) throws
    /// Removes the identity; answers whether its user has any identity left.
    func unlink(provider: String, subject: String, userID: UUID) throws -> Bool
    /// Deletes the account as docs/reference.md, "Account deletion" says, queuing its Apple tokens
    /// for revocation when `revokeHeldTokens`; false when it was gone.
    func deleteAccount(userID: UUID, reason: AccountDeletion.Reason, revokeHeldTokens: Bool, now: Date) throws -> Bool
}
