import Foundation
@testable import IssuerCore
@testable import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The revocation queue's statements against PostgreSQL (docs/reference.md, "Account deletion").
@Suite("Apple revocation storage")
struct AppleRevocationStoreTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a queued row is claimed once per lease, rescheduled, finished without its token, then pruned")
    func rowLifecycle() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let store = AppleRevocationStore(pool: pool)
            let userID = UUID()
            let queued = try await store.queueClaimed(userID: userID, clientID: "com.example.app", sealed: [1, 2], now: now, leaseEnd: now + 60)
            let row = try #require(queued.first)
            #expect(queued.count == 1 && row.userID == userID && row.attempts == 1 && row.sealed == [1, 2])
            #expect(try await store.depth() == 1)
            #expect(try await store.claimDue(now: now, leaseEnd: now + 60, limit: 20).isEmpty, "claimed by the caller until its lease ends")

            let due = try await store.claimDue(now: now + 60, leaseEnd: now + 120, limit: 20)
            #expect(due.map(\.id) == [row.id] && due.first?.attempts == 2)
            try await store.reschedule(id: row.id, next: now + 600, error: "HTTP 503")
            var listed = try #require(try await store.list().first)
            #expect(listed.lastError == "HTTP 503" && listed.nextAttemptAt == now + 600 && listed.attempts == 2 && listed.finishedAt == nil)

            try await store.finish(id: row.id, at: now + 700, outcome: "revoked")
            try await store.reschedule(id: row.id, next: now + 900, error: "late")
            listed = try #require(try await store.list().first)
            #expect(listed.outcome == "revoked" && listed.finishedAt == now + 700 && listed.lastError == nil, "a finished row stays finished")
            #expect(try await store.depth() == 0)
            #expect(try await store.claimDue(now: now + 10_000, leaseEnd: now + 10_060, limit: 20).isEmpty)
            #expect(try await pool.query("SELECT sealed FROM apple_revocations").single?.decodeIfPresent([UInt8].self, column: "sealed") == nil)

            try await store.pruneFinished(before: now + 700)
            #expect(try await store.list().count == 1, "finished at the cutoff: kept")
            try await store.pruneFinished(before: now + 701)
            #expect(try await store.list().isEmpty)
        }
    }

    @Test("claims the earliest due rows, at most the limit, and never a row another claim holds")
    func claimsDueRows() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let store = AppleRevocationStore(pool: pool)
            var ids: [UUID] = []
            for i in 0..<3 {
                let row = try await store.queueClaimed(userID: UUID(), clientID: "c", sealed: [UInt8(i)], now: now, leaseEnd: now + Double(10 * (3 - i)))
                ids.append(try #require(row.first).id)
            }
            let first = try await store.claimDue(now: now + 100, leaseEnd: now + 200, limit: 2)
            // RETURNING keeps no order: which rows, not their order, is the claim's.
            #expect(Set(first.map(\.id)) == [ids[2], ids[1]])
            let second = try await store.claimDue(now: now + 100, leaseEnd: now + 200, limit: 2)
            #expect(second.map(\.id) == [ids[0]])
        }
    }

    @Test("enqueue moves every Apple token the user holds, already claimed, inside the caller's transaction")
    func enqueueInTransaction() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let signIn = try await AccountDeletionStoringContractTests.signInHoldingAppleTokens(
                pool: pool, subject: "queued.sub", clients: ["com.example.app", "com.example.web"], now: now)
            let claimed = try await pool.transaction { connection in
                try AppleRevocationStore.enqueue(userID: signIn.user.id, on: connection, now: now, leaseEnd: now + 60)
            }
            #expect(Set(claimed.map(\.clientID)) == ["com.example.app", "com.example.web"])
            #expect(claimed.allSatisfy { $0.userID == signIn.user.id && $0.sealed == [7] && $0.attempts == 1 })
            let store = AppleRevocationStore(pool: pool)
            #expect(try await store.depth() == 2)
            #expect(try await store.claimDue(now: now + 59, leaseEnd: now + 120, limit: 20).isEmpty)
        }
    }
}
