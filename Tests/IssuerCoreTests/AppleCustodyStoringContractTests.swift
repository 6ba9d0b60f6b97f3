import Foundation
@testable import IssuerCore
@testable import IssuerStorage
import Postgres
import Testing
import TestSupport

/// Apple token custody (docs/reference.md, "Apple token custody"; docs/design.md, "Decisions"): a user's Apple refresh token
/// is kept per Apple client only when Apple's `id_token` names that user's own Apple account; codes Apple could not redeem wait
/// while they live, and answers wait for Apple's keys, each one worker's per lease; whatever cannot be kept is answered, so the
/// caller revokes it. The contract of `AppleCustodyStoring`, held by `AppleCustodyStore` over PostgreSQL alone: the decision
/// tests' fake (`AppleTokenCustodyTests.FakeStore`) scripts its answers.
@Suite("Apple token custody storage contract, PostgreSQL (reference: Apple token custody)")
struct AppleCustodyStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let app = "com.example.app"
    static let web = "com.example.web"

    /// A user signed in with Apple as `subject` (the `apple` identity custody checks).
    static func user(_ pool: ConnectionPool, _ subject: String) async throws -> UUID {
        try await SignInStore(pool: pool, clock: ManualClock(now), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            .signIn(SampleSignIn.request(subject: subject)).user.id
    }

    /// The user's kept tokens, sealed, by Apple client, read from the table.
    static func tokens(_ pool: ConnectionPool, _ userID: UUID) async throws -> [String: [UInt8]] {
        var tokens: [String: [UInt8]] = [:]
        for row in try await pool.query("SELECT client_id, sealed FROM apple_tokens WHERE user_id = $1", [userID]).rows {
            tokens[try row.decode(String.self, column: "client_id")] = try row.decode([UInt8].self, column: "sealed")
        }
        return tokens
    }

    static func rowCount(_ pool: ConnectionPool, _ table: String) async throws -> Int {
        try await pool.query("SELECT count(*) AS n FROM \(table)").single?.decode(Int.self, column: "n") ?? -1
    }

    static func lastError(_ pool: ConnectionPool, _ table: String, _ id: UUID) async throws -> String? {
        try await pool.query("SELECT last_error FROM \(table) WHERE id = $1", [id]).single?
            .decodeIfPresent(String.self, column: "last_error")
    }

    /// Queues a code of `userID` for `clientID`, living five minutes from `now`.
    static func queue(
        _ store: AppleCustodyStore, _ userID: UUID, clientID: String = app, redirectURI: String? = nil, sealed: [UInt8] = [1, 2, 3],
        expiresAt: Date = now + 300, nextAttempt: Date
    ) async throws {
        try await store.queue(
            sealedCode: sealed, userID: userID, clientID: clientID, redirectURI: redirectURI, received: now, expiresAt: expiresAt,
            nextAttempt: nextAttempt, reason: "Apple answered 503")
    }

    @Test("keepPending: kept for the owner; a row another process ended is settled elsewhere; a row gone with its user is a user gone")
    func pendingOutcomes() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let store = AppleCustodyStore(pool: pool, provider: "apple")
            let signIns = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let now = Date()
            func pending(for subject: String) async throws -> (AppleTokenCustody.Pending, UUID) {
                let user = try await signIns.signIn(SampleSignIn.request(subject: subject)).user.id
                try await store.queue(
                    sealedCode: [1, 2, 3], userID: user, clientID: "com.example.app", redirectURI: nil, received: now,
                    expiresAt: now.addingTimeInterval(300), nextAttempt: now, reason: "test")
                let claimed = try #require(try await store.claimNext(now: now.addingTimeInterval(1), leaseEnd: now.addingTimeInterval(60)))
                return (claimed, user)
            }
            let (owned, _) = try await pending(for: "custody.kept")
            #expect(try await store.keepPending(owned, sealed: [9], appleSubject: "custody.kept", now: now) == .kept)

            let (settled, _) = try await pending(for: "custody.settled")
            try await store.dropPending(id: settled.id)
            #expect(try await store.keepPending(settled, sealed: [9], appleSubject: "custody.settled", now: now) == .settledElsewhere)

            let (orphan, user) = try await pending(for: "custody.gone")
            try await pool.query("DELETE FROM users WHERE id = $1", [user])
            #expect(try await store.keepPending(orphan, sealed: [9], appleSubject: "custody.gone", now: now) == .userGone)
        }
    }

    /// The user missing or deleted, or the token another Apple account's: nothing is written, and the caller revokes it.
    @Test("keep holds one token per Apple client for the user's own Apple account, a second keep replacing it; else nothing is written")
    func keptPerClient() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AppleCustodyStore(pool: pool, provider: "apple")
            let alice = try await Self.user(pool, "keep.alice")
            let bob = try await Self.user(pool, "keep.bob")
            let first = try await store.keep(sealed: [1], userID: alice, clientID: Self.app, appleSubject: "keep.alice", now: Self.now)
            #expect(first == .kept)
            let web = try await store.keep(sealed: [2], userID: alice, clientID: Self.web, appleSubject: "keep.alice", now: Self.now)
            #expect(web == .kept)
            let bobs = try await store.keep(sealed: [3], userID: bob, clientID: Self.app, appleSubject: "keep.bob", now: Self.now)
            #expect(bobs == .kept)
            let replaced = try await store.keep(
                sealed: [4], userID: alice, clientID: Self.app, appleSubject: "keep.alice", now: Self.now + 60)
            #expect(replaced == .kept)
            let kept = try await Self.tokens(pool, alice)
            #expect(kept == [Self.app: [4], Self.web: [2]], "one token per client, the second keep replacing the first")

            let later = Self.now + 120
            let foreign = try await store.keep(sealed: [5], userID: alice, clientID: Self.app, appleSubject: "keep.bob", now: later)
            #expect(foreign == .notTheirs, "Bob's Apple account, not Alice's")
            let unknown = try await store.keep(
                sealed: [5], userID: alice, clientID: "com.example.other", appleSubject: "keep.nobody", now: later)
            #expect(unknown == .notTheirs, "an Apple account nobody signed in with")
            let missing = try await store.keep(sealed: [5], userID: UUID(), clientID: Self.app, appleSubject: "keep.alice", now: later)
            #expect(missing == .userGone)
            let carol = try await Self.user(pool, "keep.carol")
            try await pool.query("DELETE FROM users WHERE id = $1", [carol])
            let deleted = try await store.keep(sealed: [5], userID: carol, clientID: Self.app, appleSubject: "keep.carol", now: later)
            #expect(deleted == .userGone, "deleted meanwhile")

            let aliceAfter = try await Self.tokens(pool, alice)
            #expect(aliceAfter == [Self.app: [4], Self.web: [2]], "nothing written for a token not theirs")
            let bobAfter = try await Self.tokens(pool, bob)
            #expect(bobAfter == [Self.app: [3]], "another user's token untouched")
            let total = try await Self.rowCount(pool, "apple_tokens")
            #expect(total == 3)
        }
    }

    /// A rescheduled code waits for its new attempt; a dropped one is never claimed again; a user already gone queues nothing.
    @Test("a queued code is claimed from its next attempt, earliest first, by one caller per lease, counting its attempts")
    func pendingClaims() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AppleCustodyStore(pool: pool, provider: "apple")
            let alice = try await Self.user(pool, "pending.alice")
            let bob = try await Self.user(pool, "pending.bob")
            let callback = "https://issuer.example.com/callback/apple"
            try await Self.queue(store, alice, clientID: Self.web, redirectURI: callback, sealed: [7, 8], nextAttempt: Self.now + 5)
            let early = try await store.claimNext(now: Self.now + 4, leaseEnd: Self.now + 34)
            #expect(early?.id == nil, "not before its next attempt")

            let firstClaim = try await store.claimNext(now: Self.now + 5, leaseEnd: Self.now + 35)
            let claimed = try #require(firstClaim)
            #expect(claimed.userID == alice)
            #expect(claimed.clientID == Self.web)
            #expect(claimed.redirectURI == callback)
            #expect(claimed.sealedCode == [7, 8])
            #expect(claimed.expiresAt == Self.now + 300)
            #expect(claimed.attempts == 2, "the sign-in's try, then this one")
            let leased = try await store.claimNext(now: Self.now + 34, leaseEnd: Self.now + 64)
            #expect(leased?.id == nil, "its claimer's until the lease ends")
            let secondClaim = try await store.claimNext(now: Self.now + 35, leaseEnd: Self.now + 65)
            let reclaimed = try #require(secondClaim)
            #expect(reclaimed.id == claimed.id)
            #expect(reclaimed.attempts == 3)

            try await store.reschedule(id: claimed.id, next: Self.now + 100, reason: "Apple timed out")
            let reason = try await Self.lastError(pool, "apple_code_redemptions", claimed.id)
            #expect(reason == "Apple timed out")
            try await Self.queue(store, bob, nextAttempt: Self.now + 50)
            let bobsClaim = try await store.claimNext(now: Self.now + 99, leaseEnd: Self.now + 129)
            let bobs = try #require(bobsClaim, "Bob's code is due")
            #expect(bobs.userID == bob)
            #expect(bobs.redirectURI == nil)
            #expect(bobs.attempts == 2)
            let stillWaiting = try await store.claimNext(now: Self.now + 99, leaseEnd: Self.now + 129)
            #expect(stillWaiting?.id == nil, "Alice's waits for its rescheduled attempt")

            try await Self.queue(store, bob, clientID: Self.web, nextAttempt: Self.now + 60)
            let due = try await store.claimNext(now: Self.now + 100, leaseEnd: Self.now + 130)
            #expect(due?.userID == bob, "earliest next attempt first")
            #expect(due?.clientID == Self.web)
            let aliceDue = try await store.claimNext(now: Self.now + 100, leaseEnd: Self.now + 130)
            #expect(aliceDue?.id == claimed.id)
            #expect(aliceDue?.attempts == 4)

            try await store.dropPending(id: claimed.id)
            let rows = try await Self.rowCount(pool, "apple_code_redemptions")
            #expect(rows == 2, "Bob's codes stay")
            let afterLeases = try await store.claimNext(now: Self.now + 200, leaseEnd: Self.now + 230)
            let afterLeases2 = try await store.claimNext(now: Self.now + 200, leaseEnd: Self.now + 230)
            let afterLeases3 = try await store.claimNext(now: Self.now + 200, leaseEnd: Self.now + 230)
            #expect(afterLeases?.userID == bob)
            #expect(afterLeases2?.userID == bob)
            #expect(afterLeases3?.id == nil, "the dropped code is never claimed again")

            try await Self.queue(store, UUID(), nextAttempt: Self.now + 5)
            let carol = try await Self.user(pool, "pending.carol")
            try await pool.query("DELETE FROM users WHERE id = $1", [carol])
            try await Self.queue(store, carol, nextAttempt: Self.now + 5)
            let unchanged = try await Self.rowCount(pool, "apple_code_redemptions")
            #expect(unchanged == 2, "no code queued for a user missing or deleted")
        }
    }

    @Test("dropExpired removes expired codes, answering their users; a live one, and an expired one still claimed, stay")
    func expiry() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AppleCustodyStore(pool: pool, provider: "apple")
            let alice = try await Self.user(pool, "expiry.alice")
            let bob = try await Self.user(pool, "expiry.bob")
            let carol = try await Self.user(pool, "expiry.carol")
            try await Self.queue(store, alice, expiresAt: Self.now + 300, nextAttempt: Self.now + 200)
            try await Self.queue(store, bob, expiresAt: Self.now + 100, nextAttempt: Self.now + 5)
            try await Self.queue(store, carol, expiresAt: Self.now + 100, nextAttempt: Self.now + 1)
            let carolsClaim = try await store.claimNext(now: Self.now + 90, leaseEnd: Self.now + 120)
            #expect(carolsClaim?.userID == carol)

            let none = try await store.dropExpired(now: Self.now + 99)
            #expect(none.isEmpty, "nothing expired yet")
            let expiredClaim = try await store.claimNext(now: Self.now + 100, leaseEnd: Self.now + 130)
            #expect(expiredClaim?.id == nil, "Bob's is due but expired; Carol's is claimed; Alice's is not due")
            let dropped = try await store.dropExpired(now: Self.now + 100)
            #expect(dropped == [bob])
            let rows = try await Self.rowCount(pool, "apple_code_redemptions")
            #expect(rows == 2, "Alice's live code and Carol's claimed one stay")

            let afterLease = try await store.dropExpired(now: Self.now + 120)
            #expect(afterLease == [carol], "its claim ran out")
            let again = try await store.dropExpired(now: Self.now + 200)
            #expect(again.isEmpty, "each expired code is answered once")
            let alices = try await store.claimNext(now: Self.now + 200, leaseEnd: Self.now + 230)
            #expect(alices?.userID == alice, "the live code stays claimable")
        }
    }

    /// A rescheduled answer waits for its new attempt; holding an answer ends the pending code it answered, in one statement.
    @Test("a held answer is claimed from its next attempt by one caller per lease, counting its attempts; holding ends its code")
    func heldClaims() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AppleCustodyStore(pool: pool, provider: "apple")
            let alice = try await Self.user(pool, "held.alice")
            let bob = try await Self.user(pool, "held.bob")
            try await Self.queue(store, alice, nextAttempt: Self.now)
            let pendingClaim = try await store.claimNext(now: Self.now, leaseEnd: Self.now + 30)
            let pending = try #require(pendingClaim)
            try await store.hold(
                sealedAnswer: [4, 2], userID: alice, clientID: Self.app, received: Self.now + 10, nextAttempt: Self.now + 15,
                reason: "Apple's keys unreachable", pendingID: pending.id)
            let pendingRows = try await Self.rowCount(pool, "apple_code_redemptions")
            #expect(pendingRows == 0, "the answered code ends with its answer held")
            try await store.hold(
                sealedAnswer: [6], userID: bob, clientID: Self.web, received: Self.now + 10, nextAttempt: Self.now + 20,
                reason: "Apple's keys unreachable", pendingID: nil)

            let early = try await store.claimNextHeld(now: Self.now + 14, leaseEnd: Self.now + 44)
            #expect(early?.id == nil, "not before its next attempt")
            let firstClaim = try await store.claimNextHeld(now: Self.now + 15, leaseEnd: Self.now + 45)
            let held = try #require(firstClaim)
            #expect(held.userID == alice)
            #expect(held.clientID == Self.app)
            #expect(held.sealedAnswer == [4, 2])
            #expect(held.receivedAt == Self.now + 10, "judged as of when Apple sent it")
            #expect(held.attempts == 1)
            let bobsClaim = try await store.claimNextHeld(now: Self.now + 20, leaseEnd: Self.now + 50)
            #expect(bobsClaim?.userID == bob, "Alice's is leased")
            let leased = try await store.claimNextHeld(now: Self.now + 44, leaseEnd: Self.now + 74)
            #expect(leased?.id == nil, "both are their claimers' until the leases end")
            let secondClaim = try await store.claimNextHeld(now: Self.now + 45, leaseEnd: Self.now + 75)
            #expect(secondClaim?.id == held.id)
            #expect(secondClaim?.attempts == 2)

            try await store.rescheduleHeld(id: held.id, next: Self.now + 100, reason: "Apple's keys still unreachable")
            let reason = try await Self.lastError(pool, "apple_held_answers", held.id)
            #expect(reason == "Apple's keys still unreachable")
            let bobsAgain = try await store.claimNextHeld(now: Self.now + 99, leaseEnd: Self.now + 129)
            #expect(bobsAgain?.userID == bob)
            let waiting = try await store.claimNextHeld(now: Self.now + 99, leaseEnd: Self.now + 129)
            #expect(waiting?.id == nil, "Alice's waits for its rescheduled attempt")
            let thirdClaim = try await store.claimNextHeld(now: Self.now + 100, leaseEnd: Self.now + 130)
            #expect(thirdClaim?.id == held.id)
            #expect(thirdClaim?.attempts == 3)
        }
    }

    /// Another Apple account's answer ends unkept; dropHeld ends one without a token; a deleted user's answer stays to be revoked.
    @Test("keepHeld keeps the owner's token and ends the answer once; otherwise it ends unkept, or the user is gone")
    func heldSettled() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AppleCustodyStore(pool: pool, provider: "apple")
            let alice = try await Self.user(pool, "settle.alice")
            let bob = try await Self.user(pool, "settle.bob")
            let carol = try await Self.user(pool, "settle.carol")
            for (user, client) in [(alice, Self.app), (bob, Self.app), (carol, Self.app), (alice, Self.web)] {
                try await store.hold(
                    sealedAnswer: [1], userID: user, clientID: client, received: Self.now, nextAttempt: Self.now, reason: "keys",
                    pendingID: nil)
            }
            var claims: [AppleTokenCustody.Held] = []
            for _ in 0..<4 {
                let claim = try await store.claimNextHeld(now: Self.now, leaseEnd: Self.now + 30)
                let claimed = try #require(claim)
                claims.append(claimed)
            }
            let alices = try #require(claims.first { $0.userID == alice && $0.clientID == Self.app })
            let alicesWeb = try #require(claims.first { $0.userID == alice && $0.clientID == Self.web })
            let bobs = try #require(claims.first { $0.userID == bob })
            let carols = try #require(claims.first { $0.userID == carol })

            let kept = try await store.keepHeld(alices, sealed: [9], appleSubject: "settle.alice", now: Self.now + 1)
            #expect(kept == .kept)
            let aliceTokens = try await Self.tokens(pool, alice)
            #expect(aliceTokens == [Self.app: [9]])
            let twice = try await store.keepHeld(alices, sealed: [10], appleSubject: "settle.alice", now: Self.now + 2)
            #expect(twice == .settledElsewhere, "already ended")

            let foreign = try await store.keepHeld(bobs, sealed: [8], appleSubject: "settle.alice", now: Self.now + 1)
            #expect(foreign == .notTheirs)
            let foreignAgain = try await store.keepHeld(bobs, sealed: [8], appleSubject: "settle.bob", now: Self.now + 2)
            #expect(foreignAgain == .settledElsewhere, "ended unkept: the caller revokes it")
            let bobTokens = try await Self.tokens(pool, bob)
            #expect(bobTokens.isEmpty)

            try await store.dropHeld(id: alicesWeb.id)
            let dropped = try await store.keepHeld(alicesWeb, sealed: [7], appleSubject: "settle.alice", now: Self.now + 2)
            #expect(dropped == .settledElsewhere)
            let aliceAfter = try await Self.tokens(pool, alice)
            #expect(aliceAfter == [Self.app: [9]], "a dropped answer keeps nothing; the kept token is untouched")

            try await pool.query("DELETE FROM users WHERE id = $1", [carol])
            let heldRows = try await Self.rowCount(pool, "apple_held_answers")
            #expect(heldRows == 1, "a deleted user's answer stays, to be revoked")
            let reclaimed = try await store.claimNextHeld(now: Self.now + 30, leaseEnd: Self.now + 60)
            #expect(reclaimed?.id == carols.id)
            let gone = try await store.keepHeld(carols, sealed: [6], appleSubject: "settle.carol", now: Self.now + 31)
            #expect(gone == .userGone)
            let remaining = try await Self.rowCount(pool, "apple_held_answers")
            #expect(remaining == 0, "ended: revoked by the caller, never claimed again")
            let tokenRows = try await Self.rowCount(pool, "apple_tokens")
            #expect(tokenRows == 1)
        }
    }

    @Test("eight workers claiming at once: each due code, and each held answer, goes to exactly one")
    func concurrentClaims() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AppleCustodyStore(pool: pool, provider: "apple")
            let user = try await Self.user(pool, "race")
            for index in 0..<4 {
                try await Self.queue(store, user, sealed: [UInt8(index)], nextAttempt: Self.now)
                try await store.hold(
                    sealedAnswer: [UInt8(index)], userID: user, clientID: Self.app, received: Self.now, nextAttempt: Self.now,
                    reason: "keys", pendingID: nil)
            }
            let codes = try await withThrowingTaskGroup(of: UUID?.self) { group in
                for _ in 0..<8 { group.addTask { try await store.claimNext(now: Self.now, leaseEnd: Self.now + 30)?.id } }
                return try await group.reduce(into: [UUID]()) { claimed, id in if let id { claimed.append(id) } }
            }
            #expect(codes.count == 4)
            #expect(Set(codes).count == 4)
            let answers = try await withThrowingTaskGroup(of: UUID?.self) { group in
                for _ in 0..<8 { group.addTask { try await store.claimNextHeld(now: Self.now, leaseEnd: Self.now + 30)?.id } }
                return try await group.reduce(into: [UUID]()) { claimed, id in if let id { claimed.append(id) } }
            }
            #expect(answers.count == 4)
            #expect(Set(answers).count == 4)
        }
    }
}
