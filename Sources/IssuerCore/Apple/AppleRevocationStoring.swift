import Foundation

/// What the revocation queue's sends need of its rows (docs/reference.md, "Account deletion").
package protocol AppleRevocationStoring: Sendable {
    /// Queues a token no user holds as one row already claimed by the caller until `leaseEnd`.
    func queueClaimed(userID: UUID, clientID: String, sealed: [UInt8], now: Date, leaseEnd: Date) async throws -> [AppleRevocationQueue.Claimed]
    /// Claims up to `limit` due rows, counting an attempt and leaving each alone to others until `leaseEnd`.
    func claimDue(now: Date, leaseEnd: Date, limit: Int) async throws -> [AppleRevocationQueue.Claimed]
    /// Ends a row: Apple revoked the token (`revoked`) or called it invalid (`already_invalid`).
    func finish(id: UUID, at now: Date, outcome: String) async throws
    /// Records a failed try and when the next is due.
    func reschedule(id: UUID, next: Date, error: String) async throws
    /// Rows not yet finished.
    func depth() async throws -> Int
    /// Deletes finished rows that ended before `cutoff`, one small batch.
    func pruneFinished(before cutoff: Date) async throws
}
