import Foundation
@testable import IssuerCore
import Logging
import Synchronization
import Testing
import TestSupport

/// What an account's deletion does around its transaction, against fake stores (docs/reference.md,
/// "Account deletion"): the events, the immediate tries at Apple, the count in the answer.
@Suite("Account deletion decisions")
struct AccountDeletionDecisionTests {
    /// Answers `delete` with the rows a test gives (nil: no such user) and `settledRevocations` with a count, or fails it.
    final class FakeStore: AccountDeletionStoring {
        struct Failure: Error {}

        let claimed: [AppleRevocationQueue.Claimed]?
        let settled: Int?
        private let deletions = Mutex<[(UUID, UUID?, AccountDeletion.Reason)]>([])

        init(claimed: [AppleRevocationQueue.Claimed]?, settled: Int? = 0) {
            self.claimed = claimed
            self.settled = settled
        }

        var deleted: [(UUID, UUID?, AccountDeletion.Reason)] { deletions.withLock { $0 } }

        func delete(userID: UUID, sessionID: UUID?, reason: AccountDeletion.Reason, now: Date) async throws -> [AppleRevocationQueue.Claimed]? {
            deletions.withLock { $0.append((userID, sessionID, reason)) }
            return claimed
        }

        func settledRevocations(userID: UUID) async throws -> Int {
            guard let settled else { throw Failure() }
            return settled
        }
    }

    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let vault = AppleTokenVault(secret: ServerSecret(bytes: [UInt8](repeating: 3, count: 32)))
    let logger = Logger(label: "test")

    func deletion(_ store: FakeStore, queue: InMemoryAppleRevocationStore, events: RecordingAccountEvents) -> AccountDeletion {
        let revocations = AppleRevocationQueue(store: queue, vault: vault, api: nil, clock: clock, events: events)
        return AccountDeletion(store: store, clock: clock, revocations: revocations, events: events, immediateTimeout: .seconds(1))
    }

    func claim(_ userID: UUID) -> AppleRevocationQueue.Claimed {
        AppleRevocationQueue.Claimed(id: UUID(), userID: userID, clientID: "com.example.app", sealed: [1, 2, 3], attempts: 1)
    }

    @Test("nothing to delete: nil, nothing counted, nothing sent")
    func nothingToDelete() async throws {
        let store = FakeStore(claimed: nil)
        let queue = InMemoryAppleRevocationStore()
        let events = RecordingAccountEvents()
        let sessionID = UUID()
        let outcome = try await deletion(store, queue: queue, events: events)
            .delete(userID: UUID(), sessionID: sessionID, reason: .userRequest, logger: logger)
        #expect(outcome == nil)
        #expect(store.deleted.map(\.1) == [sessionID])
        #expect(events.events.isEmpty)
        #expect(queue.writes.isEmpty)
    }

    @Test("no Apple token held: counted once, nothing tried at Apple")
    func noAppleTokens() async throws {
        let userID = UUID()
        let queue = InMemoryAppleRevocationStore()
        let events = RecordingAccountEvents()
        let outcome = try #require(try await deletion(FakeStore(claimed: []), queue: queue, events: events)
            .delete(userID: userID, reason: .operatorRequest, logger: logger))
        #expect(outcome.userID == userID && outcome.queuedRevocations == 0 && outcome.settledRevocations == 0)
        #expect(events.events == ["account_deleted:operator request"])
        #expect(queue.writes.isEmpty)
    }

    @Test("each queued token is tried at once; the answer counts what the store says settled, 0 when it cannot count")
    func triesQueuedTokens() async throws {
        let userID = UUID()
        let claimed = [claim(userID), claim(userID)]
        for (settled, expected) in [(1, 1), (nil, 0)] as [(Int?, Int)] {
            let queue = InMemoryAppleRevocationStore()
            let events = RecordingAccountEvents()
            let outcome = try #require(try await deletion(FakeStore(claimed: claimed, settled: settled), queue: queue, events: events)
                .delete(userID: userID, reason: .userRequest, logger: logger))
            #expect(outcome.queuedRevocations == 2)
            #expect(outcome.settledRevocations == expected)
            // Without Apple credentials each try fails and is rescheduled for the worker.
            #expect(Set(queue.writes.compactMap { if case .rescheduled(let id, _, _) = $0 { id } else { nil } }) == Set(claimed.map(\.id)))
            #expect(events.events.first == "account_deleted:user request")
        }
    }
}
