import Foundation

/// Deletes what has expired, in small batches (docs/reference.md, "Refresh tokens and sessions"), so no sweep holds locks for long or
/// bloats one transaction. Safe with many processes: `SessionJanitorStore` takes each batch's rows
/// so that two janitors never wait on or double-delete the same rows.
///
/// Nothing still valid is touched: a refresh token goes only after its own expiry, and a session
/// only after its maximum age, both with a margin for clocks that disagree between processes.
public struct SessionJanitor: Sendable {
    /// Rows per statement.
    public var batchSize = 500
    /// How long past expiry a row is kept, against clock skew between processes.
    public var margin: Duration = .seconds(3600)

    private let store: any SessionJanitorStoring

    /// Default batch size and margin; set the properties to change them.
    package init(store: any SessionJanitorStoring) {
        self.store = store
    }

    /// One sweep: deletes expired refresh tokens, then expired sessions (with whatever tokens
    /// remain), then spent hosted-flow states, then DPoP proofs past their lifetime (docs/reference.md,
    /// "DPoP"), up to `maxBatches` batches each. Answers what it deleted, and whether every kind
    /// ended with a short batch. With no batch to run (`maxBatches` or `batchSize` not positive) it
    /// deletes nothing and is finished.
    @discardableResult
    public func sweep(now: Date, maxBatches: Int = 20) async throws -> JanitorSweep {
        let cutoff = now.addingTimeInterval(-margin.timeInterval)
        var swept = JanitorSweep()
        guard maxBatches > 0, batchSize > 0 else { return swept }
        swept.refreshTokens = try await deleteInBatches(.refreshTokens, cutoff: cutoff, maxBatches: maxBatches, into: &swept)
        swept.sessions = try await deleteInBatches(.sessions, cutoff: cutoff, maxBatches: maxBatches, into: &swept)
        swept.authorizationStates = try await deleteInBatches(
            .spentAuthorizationStates, cutoff: cutoff, maxBatches: maxBatches, into: &swept)
        swept.dpopProofs = try await deleteInBatches(.dpopProofs, cutoff: cutoff, maxBatches: maxBatches, into: &swept)
        return swept
    }

    /// Sweeps, and sweeps again after `pause` for as long as a sweep leaves expired rows behind.
    /// One sweep deletes at most `maxBatches × batchSize` rows of each kind (10,000 by default),
    /// which a busy deployment inserts in well under a minute: a token a refresh, a proof a bound
    /// refresh. Left for the next minute, such a backlog would grow without end. Each sweep stays
    /// bounded (its batches are short transactions), and the pause leaves the database to the
    /// requests between sweeps. Once its task is cancelled it starts no other sweep and answers
    /// what it deleted so far (a sweep under way ends as its store's statement does).
    /// - Parameter now: read before each sweep, for its cutoff.
    public func sweepBacklog(
        now: () -> Date, pause: Duration = .seconds(1), maxBatches: Int = 20
    ) async throws -> JanitorSweep {
        var total = JanitorSweep()
        while !Task.isCancelled {
            total = total.followed(by: try await sweep(now: now(), maxBatches: maxBatches))
            guard !total.finished, (try? await Task.sleep(for: pause)) != nil else { break }
        }
        return total
    }

    /// Batches until one comes back short (nothing more is expired) or `maxBatches` ran; a kind
    /// that ran them all with the last one full leaves `swept` unfinished.
    private func deleteInBatches(_ rows: ExpiredRows, cutoff: Date, maxBatches: Int, into swept: inout JanitorSweep) async throws -> Int {
        var total = 0
        for _ in 0..<maxBatches {
            let deleted = try await store.deleteExpired(rows, before: cutoff, limit: batchSize)
            total += deleted
            if deleted < batchSize { return total }
        }
        swept.finished = false
        return total
    }
}
