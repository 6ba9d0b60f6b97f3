import Foundation

/// The janitor's one statement: deletes one batch of expired rows.
package protocol SessionJanitorStoring: Sendable {
    /// Deletes at most `limit` rows of `rows` that expired before `cutoff`; answers how many.
    func deleteExpired(_ rows: ExpiredRows, before cutoff: Date, limit: Int) async throws -> Int
}
