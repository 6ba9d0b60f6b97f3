import Foundation
@testable import IssuerCore
import Synchronization

/// `AppleRevocationStoring` in memory, held to the same contract as `AppleRevocationStore`
/// (`AppleRevocationStoringContractTests`): a row is claimed by one caller until its lease ends,
/// rescheduled or finished; and, for the queue's decisions, a record of what the queue wrote back.
final class InMemoryAppleRevocationStore: AppleRevocationStoring {
    struct Failure: Error {}

    enum Write: Equatable {
        case queued(userID: UUID, clientID: String)
        case finished(id: UUID, outcome: String)
        case rescheduled(id: UUID, next: Date, error: String)
    }

    private struct Row {
        var claimed: AppleRevocationQueue.Claimed
        var nextAttempt: Date
        var finishedAt: Date?
    }

    private let state: Mutex<(rows: [Row], writes: [Write], claims: Int)>
    /// Whether queuing a row fails, as a database that is down does.
    let queuingFails: Bool

    /// `due`: rows due now, each as its next claim returns it (that claim counts its attempt).
    init(due: [AppleRevocationQueue.Claimed] = [], queuingFails: Bool = false) {
        let rows = due.map { claimed in
            var unclaimed = claimed
            unclaimed.attempts -= 1
            return Row(claimed: unclaimed, nextAttempt: .distantPast)
        }
        state = Mutex((rows, [], 0))
        self.queuingFails = queuingFails
    }

    var writes: [Write] { state.withLock { $0.writes } }
    var claims: Int { state.withLock { $0.claims } }
    /// Every row, finished ones included.
    var rowCount: Int { state.withLock { $0.rows.count } }

    func queueClaimed(userID: UUID, clientID: String, sealed: [UInt8], now: Date, leaseEnd: Date) async throws -> [AppleRevocationQueue.Claimed] {
        if queuingFails { throw Failure() }
        return state.withLock { state in
            state.writes.append(.queued(userID: userID, clientID: clientID))
            let claimed = AppleRevocationQueue.Claimed(id: UUID(), userID: userID, clientID: clientID, sealed: sealed, attempts: 1)
            state.rows.append(Row(claimed: claimed, nextAttempt: leaseEnd))
            return [claimed]
        }
    }

    func claimDue(now: Date, leaseEnd: Date, limit: Int) async throws -> [AppleRevocationQueue.Claimed] {
        state.withLock { state in
            state.claims += 1
            let due = state.rows.indices
                .filter { state.rows[$0].finishedAt == nil && state.rows[$0].nextAttempt <= now }
                .sorted { state.rows[$0].nextAttempt < state.rows[$1].nextAttempt }
                .prefix(limit)
            return due.map { index in
                state.rows[index].claimed.attempts += 1
                state.rows[index].nextAttempt = leaseEnd
                return state.rows[index].claimed
            }
        }
    }

    func finish(id: UUID, at now: Date, outcome: String) async throws {
        state.withLock { state in
            state.writes.append(.finished(id: id, outcome: outcome))
            if let index = state.rows.firstIndex(where: { $0.claimed.id == id && $0.finishedAt == nil }) {
                state.rows[index].finishedAt = now
            }
        }
    }

    func reschedule(id: UUID, next: Date, error: String) async throws {
        state.withLock { state in
            state.writes.append(.rescheduled(id: id, next: next, error: error))
            if let index = state.rows.firstIndex(where: { $0.claimed.id == id && $0.finishedAt == nil }) {
                state.rows[index].nextAttempt = next
            }
        }
    }

    func depth() async throws -> Int {
        state.withLock { $0.rows.filter { $0.finishedAt == nil }.count }
    }

    func pruneFinished(before cutoff: Date) async throws {
        state.withLock { $0.rows.removeAll { $0.finishedAt.map { $0 < cutoff } ?? false } }
    }
}
