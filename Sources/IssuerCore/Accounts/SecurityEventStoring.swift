import Foundation

/// Runs the changes of one delivery of security events in one transaction, so that recording its
/// id and applying its effects commit together (`SecurityEventPipeline`).
package protocol SecurityEventStoring: Sendable {
    /// Runs `body` in one transaction: all its changes commit, or none.
    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (any SecurityEventChanges) throws -> T) async throws -> T
}
