import Foundation

/// What `DeletionNoticeQueue` needs of its rows (`deletion_notices`).
package protocol DeletionNoticeStoring: Sendable {
    /// Ends the rows whose identity is back as `superseded`, then claims up to `limit` due rows,
    /// counting an attempt and leaving each alone to others until `leaseEnd`.
    func claimDue(now: Date, leaseEnd: Date, limit: Int) async throws -> [DeletionNoticeQueue.Claimed]
    /// Ends a row (`done` or `already_gone`), forgetting the provider's user id.
    func finish(id: UUID, at now: Date, outcome: String) async throws
    /// Records a failed try and when the next is due.
    func reschedule(id: UUID, next: Date, error: String) async throws
    /// Rows not yet finished.
    func depth() async throws -> Int
    /// Deletes finished rows that ended before `cutoff`, one small batch.
    func pruneFinished(before cutoff: Date) async throws
}
