import Foundation

/// A store over one retry queue's table (`RetryQueueTable`): finishing, rescheduling, counting and
/// pruning rows are the same statements for every queue (docs/design.md, "Apple and remote
/// parties"), so each store answers them here, once, and writes only what its rows carry.
package protocol RetryQueueStore: Sendable {
    /// The queue's table, on the store's pool.
    var table: RetryQueueTable { get }
}

extension RetryQueueStore {
    /// Ends a row with `outcome`, forgetting what it was sent with.
    package func finish(id: UUID, at now: Date, outcome: String) async throws {
        try await table.finish(id: id, at: now, outcome: outcome)
    }

    /// Records a failed try and when the next is due.
    package func reschedule(id: UUID, next: Date, error: String) async throws {
        try await table.reschedule(id: id, next: next, error: error)
    }

    /// Rows not yet finished.
    package func depth() async throws -> Int {
        try await table.depth()
    }

    /// Deletes finished rows that ended before `cutoff`, one batch.
    package func pruneFinished(before cutoff: Date) async throws {
        try await table.pruneFinished(before: cutoff)
    }
}
