import Foundation
@testable import IssuerCore
import Synchronization

/// An in-memory `AppleRevocationStoring` for the queue's decisions: it hands out the rows a test
/// gives it and records what the queue wrote back.
final class FakeAppleRevocationStore: AppleRevocationStoring {
    struct Failure: Error {}

    enum Write: Equatable {
        case queued(userID: UUID, clientID: String)
        case finished(id: UUID, outcome: String)
        case rescheduled(id: UUID, next: Date, error: String)
    }

    private let state: Mutex<(due: [AppleRevocationQueue.Claimed], writes: [Write], claims: Int)>
    /// Whether queuing a row fails, as a database that is down does.
    let queuingFails: Bool

    init(due: [AppleRevocationQueue.Claimed] = [], queuingFails: Bool = false) {
        state = Mutex((due, [], 0))
        self.queuingFails = queuingFails
    }

    var writes: [Write] { state.withLock { $0.writes } }
    var claims: Int { state.withLock { $0.claims } }

    func queueClaimed(userID: UUID, clientID: String, sealed: [UInt8], now: Date, leaseEnd: Date) async throws -> [AppleRevocationQueue.Claimed] {
        if queuingFails { throw Failure() }
        return state.withLock { state in
            state.writes.append(.queued(userID: userID, clientID: clientID))
            return [AppleRevocationQueue.Claimed(id: UUID(), userID: userID, clientID: clientID, sealed: sealed, attempts: 1)]
        }
    }

    func claimDue(now: Date, leaseEnd: Date, limit: Int) async throws -> [AppleRevocationQueue.Claimed] {
        state.withLock { state in
            state.claims += 1
            let claimed = Array(state.due.prefix(limit))
            state.due.removeFirst(claimed.count)
            return claimed
        }
    }

    func finish(id: UUID, at now: Date, outcome: String) async throws {
        state.withLock { $0.writes.append(.finished(id: id, outcome: outcome)) }
    }

    func reschedule(id: UUID, next: Date, error: String) async throws {
        state.withLock { $0.writes.append(.rescheduled(id: id, next: next, error: error)) }
    }

    func depth() async throws -> Int {
        state.withLock { $0.due.count }
    }

    func pruneFinished(before cutoff: Date) async throws {}
}
