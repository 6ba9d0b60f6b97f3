import Foundation
@testable import IssuerCore
@testable import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The contract of `AccountDeletionStoring`, held by `AccountDeletionStore` over PostgreSQL: the
/// account deletion's transaction and the audit record, the Apple revocations it queues and settles,
/// and what `issuer users show` reads of a user's Apple side (docs/reference.md, "Account deletion"
/// and "Admin CLI"). The decision tests' fake (`AccountDeletionDecisionTests.FakeStore`) scripts its
/// answers, so this suite runs against PostgreSQL alone.
@Suite("Account deletion storage contract, PostgreSQL (reference: Account deletion)")
struct AccountDeletionStoringContractTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A user signed in with Apple (`subject`) for whom an Apple token per client is held (sealed `[7]`).
    static func signInHoldingAppleTokens(pool: ConnectionPool, subject: String, clients: [String], now: Date) async throws -> SignIn {
        let signIn = try await SignInStore(pool: pool, clock: ManualClock(now), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            .signIn(SampleSignIn.request(subject: subject))
        let custody = AppleCustodyStore(pool: pool, provider: "apple")
        for client in clients {
            #expect(try await custody.keep(sealed: [7], userID: signIn.user.id, clientID: client, appleSubject: subject, now: now) == .kept)
        }
        return signIn
    }

    @Test("deletes only with a live session of the user, queues its Apple tokens, and keeps the audit record")
    func deletesWithLiveSession() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let signIn = try await Self.signInHoldingAppleTokens(pool: pool, subject: "deleted.sub", clients: ["com.example.app"], now: now)
            let userID = signIn.user.id
            let apple = try #require(try await AppleAccountStateStore(pool: pool).state(userID: userID))
            #expect(apple.heldTokens.map(\.clientID) == ["com.example.app"] && apple.heldTokens.first?.since == now)
            #expect(apple.pendingCodes == 0 && apple.emailForwarding == nil)

            let store = AccountDeletionStore(pool: pool)
            #expect(try await store.delete(userID: userID, sessionID: UUID(), reason: .userRequest, now: now) == nil, "not a session of the user")
            #expect(try await store.delete(userID: userID, sessionID: signIn.sessionID, reason: .userRequest, now: now + 7200) == nil,
                    "the session has ended")
            #expect(try await SessionDirectoryStore(pool: pool).user(id: userID) != nil)
            #expect(try await store.deletion(userID: userID) == nil)

            let claimed = try #require(try await store.delete(userID: userID, sessionID: signIn.sessionID, reason: .userRequest, now: now))
            #expect(claimed.map(\.clientID) == ["com.example.app"] && claimed.first?.sealed == [7])
            #expect(try await SessionDirectoryStore(pool: pool).user(id: userID) == nil)
            #expect(try await AppleAccountStateStore(pool: pool).state(userID: userID) == nil)
            let record = try #require(try await store.deletion(userID: userID))
            #expect(record.at == now && record.reason == "user request")
            #expect(try await store.delete(userID: userID, sessionID: nil, reason: .operatorRequest, now: now) == nil, "gone already")

            #expect(try await store.settledRevocations(userID: userID) == 0)
            try await AppleRevocationStore(pool: pool).finish(id: try #require(claimed.first).id, at: now, outcome: "revoked")
            #expect(try await store.settledRevocations(userID: userID) == 1)
        }
    }

    @Test("without revoking at Apple, the user's Apple tokens go with it and nothing is queued")
    func deleteWithoutRevoking() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let signIn = try await Self.signInHoldingAppleTokens(pool: pool, subject: "apple.deleted.sub", clients: ["com.example.app"], now: now)
            let claimed = try await pool.transaction { connection in
                try AccountDeletionStore.delete(
                    userID: signIn.user.id, sessionID: nil, reason: .appleAccountDeleted, revokeAtApple: false, noticeProviders: [], on: connection,
                    now: now)
            }
            #expect(claimed?.isEmpty == true)
            #expect(try await AppleRevocationStore(pool: pool).depth() == 0)
            #expect(try await AccountDeletionStore(pool: pool).deletion(userID: signIn.user.id)?.reason == "apple account deleted")
        }
    }
}
