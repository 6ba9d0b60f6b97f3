import Foundation
@testable import IssuerCore
import IssuerStorage
import Testing
import TestSupport

/// Apple refresh tokens waiting to be revoked at Apple (docs/reference.md, "Account deletion";
/// docs/design.md, "Apple and remote parties"): a row is claimed by one caller until its lease
/// ends, so two processes never send one revocation at once; a failed send waits for its next
/// attempt; a finished row is never claimed again and leaves the depth. The contract of
/// `AppleRevocationStoring`, held by `AppleRevocationStore` over PostgreSQL and by
/// `InMemoryAppleRevocationStore` alike (`StoreBackend`).
@Suite("Apple revocation queue storage contract, PostgreSQL and in memory (reference: Account deletion)")
struct AppleRevocationStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func withStore(_ backend: StoreBackend, _ body: (any AppleRevocationStoring) async throws -> Void) async throws {
        try await withStore(backend) { store, _ in try await body(store) }
    }

    /// Runs `body` with the store of `backend` and a count of its rows, finished ones included,
    /// which the protocol does not answer (`issuer apple revocations` lists them).
    static func withStore(
        _ backend: StoreBackend, _ body: (any AppleRevocationStoring, _ rows: @Sendable () async throws -> Int) async throws -> Void
    ) async throws {
        switch backend {
        case .postgres:
            try await TestCluster.withMigratedPool(size: 4) { pool in
                let store = AppleRevocationStore(pool: pool)
                try await body(store) { try await store.list(limit: 1000).count }
            }
        case .memory:
            let store = InMemoryAppleRevocationStore()
            try await body(store) { store.rowCount }
        }
    }

    /// Queues one token already claimed until `leaseEnd`; answers its row.
    static func queue(_ store: any AppleRevocationStoring, client: String = "app", at time: Date = now, leaseEnd: Date) async throws -> AppleRevocationQueue.Claimed {
        let queued = try await store.queueClaimed(userID: UUID(), clientID: client, sealed: [1, 2, 3], now: time, leaseEnd: leaseEnd)
        try #require(queued.count == 1)
        return queued[0]
    }

    @Test("a queued row is its caller's until the lease ends, then one claim's, counting its attempts", arguments: StoreBackend.allCases)
    func claimedUntilLeaseEnds(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let leaseEnd = Self.now.addingTimeInterval(30)
            let row = try await Self.queue(store, leaseEnd: leaseEnd)
            #expect(row.attempts == 1)
            #expect(row.sealed == [1, 2, 3])
            let depth = try await store.depth()
            #expect(depth == 1)
            let early = try await store.claimDue(now: leaseEnd.addingTimeInterval(-1), leaseEnd: leaseEnd.addingTimeInterval(30), limit: 10)
            #expect(early.isEmpty, "still the queuing caller's")
            let claimed = try await store.claimDue(now: leaseEnd, leaseEnd: leaseEnd.addingTimeInterval(30), limit: 10)
            #expect(claimed.map(\.id) == [row.id])
            #expect(claimed.first?.attempts == 2)
            let again = try await store.claimDue(now: leaseEnd, leaseEnd: leaseEnd.addingTimeInterval(30), limit: 10)
            #expect(again.isEmpty, "claimed: left alone to others until its new lease ends")
        }
    }

    @Test("a rescheduled row waits for its next attempt; a finished one is never claimed again and leaves the depth", arguments: StoreBackend.allCases)
    func rescheduleAndFinish(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let row = try await Self.queue(store, leaseEnd: Self.now.addingTimeInterval(30))
            let next = Self.now.addingTimeInterval(600)
            try await store.reschedule(id: row.id, next: next, error: "Apple answered 503")
            let before = try await store.claimDue(now: next.addingTimeInterval(-1), leaseEnd: next.addingTimeInterval(30), limit: 10)
            #expect(before.isEmpty)
            let due = try await store.claimDue(now: next, leaseEnd: next.addingTimeInterval(30), limit: 10)
            #expect(due.map(\.id) == [row.id])
            try await store.finish(id: row.id, at: next, outcome: "revoked")
            let depth = try await store.depth()
            #expect(depth == 0)
            try await store.reschedule(id: row.id, next: next, error: "late")
            let never = try await store.claimDue(now: next.addingTimeInterval(86_400), leaseEnd: next.addingTimeInterval(90_000), limit: 10)
            #expect(never.isEmpty, "finished: never claimed again, a late reschedule notwithstanding")
        }
    }

    @Test("claims take the earliest due first, at most the limit", arguments: StoreBackend.allCases)
    func earliestFirstWithinLimit(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let late = try await Self.queue(store, client: "late", leaseEnd: Self.now.addingTimeInterval(20))
            let early = try await Self.queue(store, client: "early", leaseEnd: Self.now.addingTimeInterval(10))
            let first = try await store.claimDue(now: Self.now.addingTimeInterval(60), leaseEnd: Self.now.addingTimeInterval(120), limit: 1)
            #expect(first.map(\.id) == [early.id])
            let second = try await store.claimDue(now: Self.now.addingTimeInterval(60), leaseEnd: Self.now.addingTimeInterval(120), limit: 1)
            #expect(second.map(\.id) == [late.id])
        }
    }

    @Test("pruning removes rows finished before the cutoff only: a later finished one and a pending one stay", arguments: StoreBackend.allCases)
    func pruneFinishedOnly(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store, rows in
            let done = try await Self.queue(store, leaseEnd: Self.now)
            let doneLater = try await Self.queue(store, leaseEnd: Self.now)
            let pending = try await Self.queue(store, leaseEnd: Self.now)
            try await store.finish(id: done.id, at: Self.now, outcome: "revoked")
            try await store.finish(id: doneLater.id, at: Self.now.addingTimeInterval(10), outcome: "revoked")
            let before = try await rows()
            #expect(before == 3)
            try await store.pruneFinished(before: Self.now.addingTimeInterval(1))
            let after = try await rows()
            #expect(after == 2, "only the row finished before the cutoff goes")
            let depth = try await store.depth()
            #expect(depth == 1)
            let due = try await store.claimDue(now: Self.now, leaseEnd: Self.now.addingTimeInterval(30), limit: 10)
            #expect(due.map(\.id) == [pending.id])
        }
    }

    @Test("eight workers claiming four due rows at once: each row goes to exactly one", arguments: StoreBackend.allCases)
    func concurrentClaims(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            var queued: Set<UUID> = []
            for _ in 0..<4 { queued.insert(try await Self.queue(store, leaseEnd: Self.now).id) }
            let claimed = try await withThrowingTaskGroup(of: [UUID].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await store.claimDue(now: Self.now, leaseEnd: Self.now.addingTimeInterval(30), limit: 1).map(\.id)
                    }
                }
                return try await group.reduce(into: [UUID]()) { $0 += $1 }
            }
            #expect(claimed.count == 4)
            #expect(Set(claimed) == queued)
        }
    }
}
