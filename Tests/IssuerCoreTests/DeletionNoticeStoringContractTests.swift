import Foundation
@testable import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The notices a provider gets when an account with its identity is deleted (docs/reference.md, "Account deletion" and
/// "Facebook"; docs/design.md, "Apple and remote parties"): queued by the deletion, a row is claimed by one caller until
/// its lease ends, a failed send waits for its next attempt, a finished one forgets the provider's user id and leaves the
/// depth, and a notice whose identity signed in again is superseded, never sent. The contract of `DeletionNoticeStoring`,
/// held by `DeletionNoticeStore` over PostgreSQL (no in-memory store exists).
@Suite("Deletion notice queue storage contract, PostgreSQL (reference: Account deletion, Facebook)")
struct DeletionNoticeStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func facebook(_ subject: String) -> ExternalIdentity {
        ExternalIdentity(provider: "facebook", subject: subject, audience: "facebook-app")
    }

    static func signIn(_ pool: ConnectionPool, _ identity: ExternalIdentity, at time: Date = now) async throws -> SignIn {
        try await SignInStore(pool: pool, clock: ManualClock(time), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            .signIn(SignInRequest(identity: identity, clientID: "clanboards-mobile", scopes: ["openid"]))
    }

    /// Queues a notice as production does: a user signs in with the Facebook identity `subject` at `time` and deletes
    /// the account then, Facebook among the providers told of deletions. Answers the notice's id and the deleted user.
    static func queueNotice(_ pool: ConnectionPool, subject: String, at time: Date = now) async throws -> (id: UUID, userID: UUID) {
        let user = try await Self.signIn(pool, Self.facebook(subject), at: time)
        let deleted = try await AccountDeletionStore(pool: pool, noticeProviders: ["facebook"])
            .delete(userID: user.user.id, sessionID: user.sessionID, reason: .userRequest, now: time)
        try #require(deleted != nil, "the account was deleted")
        let rows = try await pool.query("SELECT id FROM deletion_notices WHERE user_id = $1", [user.user.id]).rows
        try #require(rows.count == 1, "one notice for the one Facebook identity")
        return (try rows[0].decode(UUID.self, column: "id"), user.user.id)
    }

    /// A row as operators read it: its outcome (nil while pending), the provider's user id while kept, when it ended.
    static func notice(
        _ pool: ConnectionPool, _ id: UUID
    ) async throws -> (outcome: String?, subject: String?, finishedAt: Date?, lastError: String?) {
        let found = try await pool.query(
            "SELECT outcome, subject, finished_at, last_error FROM deletion_notices WHERE id = $1", [id]).single
        let row = try #require(found)
        return (
            try row.decodeIfPresent(String.self, column: "outcome"), try row.decodeIfPresent(String.self, column: "subject"),
            try row.decodeIfPresent(Date.self, column: "finished_at"), try row.decodeIfPresent(String.self, column: "last_error"))
    }

    /// Every row's id, finished ones included (the protocol counts pending ones only).
    static func rowIDs(_ pool: ConnectionPool) async throws -> Set<UUID> {
        let rows = try await pool.query("SELECT id FROM deletion_notices").rows
        return try Set(rows.map { try $0.decode(UUID.self, column: "id") })
    }

    @Test("a queued notice is due at once with the provider's user id, one claim's per lease, counting attempts; a reschedule delays it")
    func claimedOncePerLease() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any DeletionNoticeStoring = DeletionNoticeStore(pool: pool)
            let queued = try await Self.queueNotice(pool, subject: "fb-lease")
            let depth = try await store.depth()
            #expect(depth == 1)
            let leaseEnd = Self.now.addingTimeInterval(30)
            let notYet = try await store.claimDue(now: Self.now.addingTimeInterval(-1), leaseEnd: leaseEnd, limit: 10)
            #expect(notYet.isEmpty, "due from the deletion on, not before")
            let claimed = try await store.claimDue(now: Self.now, leaseEnd: leaseEnd, limit: 10)
            #expect(claimed.map(\.id) == [queued.id])
            let first = try #require(claimed.first)
            #expect(first.userID == queued.userID && first.provider == "facebook" && first.subject == "fb-lease")
            #expect(first.attempts == 1)
            let during = try await store.claimDue(
                now: leaseEnd.addingTimeInterval(-1), leaseEnd: leaseEnd.addingTimeInterval(30), limit: 10)
            #expect(during.isEmpty, "claimed: left alone to others until its lease ends")
            let retaken = try await store.claimDue(now: leaseEnd, leaseEnd: leaseEnd.addingTimeInterval(30), limit: 10)
            #expect(retaken.map(\.id) == [queued.id], "a lease that ended without an outcome: tried again")
            #expect(retaken.first?.attempts == 2)

            let next = Self.now.addingTimeInterval(600)
            try await store.reschedule(id: queued.id, next: next, error: "Facebook answered 503")
            let failed = try await Self.notice(pool, queued.id)
            #expect(failed.lastError == "Facebook answered 503" && failed.outcome == nil && failed.subject == "fb-lease")
            let early = try await store.claimDue(now: next.addingTimeInterval(-1), leaseEnd: next.addingTimeInterval(30), limit: 10)
            #expect(early.isEmpty, "waits for its next attempt")
            let due = try await store.claimDue(now: next, leaseEnd: next.addingTimeInterval(30), limit: 10)
            #expect(due.map(\.id) == [queued.id])
            #expect(due.first?.attempts == 3)
            let stillPending = try await store.depth()
            #expect(stillPending == 1)
        }
    }

    @Test("claims take the earliest due first, at most the limit")
    func earliestFirstWithinLimit() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any DeletionNoticeStoring = DeletionNoticeStore(pool: pool)
            let late = try await Self.queueNotice(pool, subject: "fb-late", at: Self.now.addingTimeInterval(20))
            let early = try await Self.queueNotice(pool, subject: "fb-early", at: Self.now.addingTimeInterval(10))
            let claimAt = Self.now.addingTimeInterval(60)
            let first = try await store.claimDue(now: claimAt, leaseEnd: claimAt.addingTimeInterval(60), limit: 1)
            #expect(first.map(\.id) == [early.id])
            let second = try await store.claimDue(now: claimAt, leaseEnd: claimAt.addingTimeInterval(60), limit: 1)
            #expect(second.map(\.id) == [late.id])
            let none = try await store.claimDue(now: claimAt, leaseEnd: claimAt.addingTimeInterval(60), limit: 10)
            #expect(none.isEmpty)
        }
    }

    @Test("finishing ends a notice once: it leaves the depth, forgets the provider's user id and is never claimed again")
    func finishForgets() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any DeletionNoticeStoring = DeletionNoticeStore(pool: pool)
            let done = try await Self.queueNotice(pool, subject: "fb-done")
            let gone = try await Self.queueNotice(pool, subject: "fb-gone")
            let pending = try await Self.queueNotice(pool, subject: "fb-pending")
            let claimed = try await store.claimDue(now: Self.now, leaseEnd: Self.now.addingTimeInterval(30), limit: 10)
            #expect(Set(claimed.map(\.id)) == [done.id, gone.id, pending.id])
            try await store.finish(id: done.id, at: Self.now.addingTimeInterval(10), outcome: "done")
            try await store.finish(id: gone.id, at: Self.now.addingTimeInterval(20), outcome: "already_gone")
            let depth = try await store.depth()
            #expect(depth == 1)

            let doneRow = try await Self.notice(pool, done.id)
            #expect(doneRow.outcome == "done" && doneRow.finishedAt == Self.now.addingTimeInterval(10))
            #expect(doneRow.subject == nil, "the provider's user id is kept only while the notice is pending")
            let goneRow = try await Self.notice(pool, gone.id)
            #expect(goneRow.outcome == "already_gone" && goneRow.subject == nil)
            let pendingRow = try await Self.notice(pool, pending.id)
            #expect(pendingRow.outcome == nil && pendingRow.finishedAt == nil && pendingRow.subject == "fb-pending")

            // A late outcome or failure of a finished row changes nothing.
            try await store.finish(id: done.id, at: Self.now.addingTimeInterval(50), outcome: "already_gone")
            try await store.reschedule(id: done.id, next: Self.now.addingTimeInterval(40), error: "late")
            let kept = try await Self.notice(pool, done.id)
            #expect(kept.outcome == "done" && kept.finishedAt == Self.now.addingTimeInterval(10) && kept.lastError == nil)
            let later = Self.now.addingTimeInterval(86_400)
            let retried = try await store.claimDue(now: later, leaseEnd: later.addingTimeInterval(30), limit: 10)
            #expect(retried.map(\.id) == [pending.id], "finished ones are never claimed again")
        }
    }

    @Test("pruning removes rows finished before the cutoff only: a later finished one and a pending one stay")
    func pruneFinishedOnly() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any DeletionNoticeStoring = DeletionNoticeStore(pool: pool)
            let done = try await Self.queueNotice(pool, subject: "fb-prune-done")
            let doneLater = try await Self.queueNotice(pool, subject: "fb-prune-later")
            let pending = try await Self.queueNotice(pool, subject: "fb-prune-pending")
            try await store.finish(id: done.id, at: Self.now, outcome: "done")
            try await store.finish(id: doneLater.id, at: Self.now.addingTimeInterval(10), outcome: "done")
            try await store.pruneFinished(before: Self.now.addingTimeInterval(1))
            let afterFirst = try await Self.rowIDs(pool)
            #expect(afterFirst == [doneLater.id, pending.id], "only the row finished before the cutoff goes")
            try await store.pruneFinished(before: Self.now.addingTimeInterval(86_400))
            let afterSecond = try await Self.rowIDs(pool)
            #expect(afterSecond == [pending.id], "a pending row is never pruned")
            let depth = try await store.depth()
            #expect(depth == 1)
        }
    }

    @Test("a notice whose identity signed in again before it went is superseded: never claimed, its user id forgotten")
    func supersededBySignIn() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any DeletionNoticeStoring = DeletionNoticeStore(pool: pool)
            let back = try await Self.queueNotice(pool, subject: "fb-back")
            let other = try await Self.queueNotice(pool, subject: "fb-other")
            // The person signs in with that Facebook account again: a new user, who keeps the app's permissions.
            let returned = try await Self.signIn(pool, Self.facebook("fb-back"), at: Self.now.addingTimeInterval(5))
            #expect(returned.user.id != back.userID)
            let claimAt = Self.now.addingTimeInterval(10)
            let claimed = try await store.claimDue(now: claimAt, leaseEnd: claimAt.addingTimeInterval(30), limit: 10)
            #expect(claimed.map(\.id) == [other.id])
            let superseded = try await Self.notice(pool, back.id)
            #expect(superseded.outcome == "superseded" && superseded.finishedAt == claimAt)
            #expect(superseded.subject == nil)
            let depth = try await store.depth()
            #expect(depth == 1)
        }
    }

    @Test("eight workers claiming four due notices at once: each notice goes to exactly one")
    func concurrentClaims() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any DeletionNoticeStoring = DeletionNoticeStore(pool: pool)
            var queued: Set<UUID> = []
            for index in 0..<4 { queued.insert(try await Self.queueNotice(pool, subject: "fb-race-\(index)").id) }
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
