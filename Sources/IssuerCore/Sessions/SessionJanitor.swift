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
    /// "DPoP"), up to `maxBatches` batches each. Answers the refresh tokens and sessions deleted.
    @discardableResult
    public func sweep(now: Date, maxBatches: Int = 20) async throws -> (refreshTokens: Int, sessions: Int) {
        let cutoff = now.addingTimeInterval(-margin.timeInterval)
        let tokens = try await deleteInBatches(.refreshTokens, cutoff: cutoff, maxBatches: maxBatches)
        let sessions = try await deleteInBatches(.sessions, cutoff: cutoff, maxBatches: maxBatches)
        try await deleteInBatches(.spentAuthorizationStates, cutoff: cutoff, maxBatches: maxBatches)
        try await deleteInBatches(.dpopProofs, cutoff: cutoff, maxBatches: maxBatches)
        return (tokens, sessions)
    }

    /// Batches until one comes back short (nothing more is expired) or `maxBatches` ran.
    @discardableResult
    private func deleteInBatches(_ rows: ExpiredRows, cutoff: Date, maxBatches: Int) async throws -> Int {
        var total = 0
        for _ in 0..<maxBatches {
            let deleted = try await store.deleteExpired(rows, before: cutoff, limit: batchSize)
            total += deleted
            if deleted < batchSize { break }
        }
        return total
    }
}
