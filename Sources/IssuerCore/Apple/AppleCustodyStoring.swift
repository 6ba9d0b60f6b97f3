import Foundation

/// What Apple token custody keeps (docs/reference.md, "Apple token custody"): the user's Apple
/// refresh tokens, the codes waiting to be redeemed in the background, and Apple's answers held
/// until Apple's keys are back to verify them.
package protocol AppleCustodyStoring: Sendable {
    /// Stores `sealed` as the user's Apple token for `clientID` when `appleSubject` is theirs.
    func keep(sealed: [UInt8], userID: UUID, clientID: String, appleSubject: String, now: Date) async throws -> AppleTokenCustody.Kept
    /// Queues a code Apple could not redeem now, unless the user is gone already.
    func queue(
        sealedCode: [UInt8], userID: UUID, clientID: String, redirectURI: String?, received: Date, expiresAt: Date,
        nextAttempt: Date, reason: String) async throws
    /// Drops codes past their lifetime; answers their users.
    func dropExpired(now: Date) async throws -> [UUID]
    /// Claims the next due code, leaving it alone to others until `leaseEnd`.
    func claimNext(now: Date, leaseEnd: Date) async throws -> AppleTokenCustody.Pending?
    /// Ends a pending code whose redemption succeeded, storing the token as `keep` does.
    func keepPending(_ pending: AppleTokenCustody.Pending, sealed: [UInt8], appleSubject: String, now: Date) async throws -> AppleTokenCustody.Kept
    /// Ends a pending code without a token.
    func dropPending(id: UUID) async throws
    /// Schedules the next try of a pending code.
    func reschedule(id: UUID, next: Date, reason: String) async throws
    /// Holds Apple's answer whose `id_token` cannot be verified now, ending the pending code
    /// `pendingID` (when the answer came from one) in the same statement.
    func hold(
        sealedAnswer: [UInt8], userID: UUID, clientID: String, received: Date, nextAttempt: Date, reason: String, pendingID: UUID?
    ) async throws
    /// Claims the next held answer due, leaving it alone to others until `leaseEnd`.
    func claimNextHeld(now: Date, leaseEnd: Date) async throws -> AppleTokenCustody.Held?
    /// Ends a held answer that verified, storing its token as `keep` does.
    func keepHeld(_ held: AppleTokenCustody.Held, sealed: [UInt8], appleSubject: String, now: Date) async throws -> AppleTokenCustody.Kept
    /// Ends a held answer without keeping its token.
    func dropHeld(id: UUID) async throws
    /// Schedules the next verification of a held answer.
    func rescheduleHeld(id: UUID, next: Date, reason: String) async throws
}
