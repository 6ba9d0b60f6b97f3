import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The contract of `UserStoring`, held by `UserStore` over PostgreSQL (docs/reference.md,
/// "UserInfo"): the user as stored now, only while the session the access token names is a live
/// one of theirs, so a token outliving its session's revocation or end answers no claims. No
/// decision test fakes it, so this suite runs against PostgreSQL alone.
@Suite("User storage contract, PostgreSQL (reference: UserInfo)")
struct UserStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("the user with a live session of theirs, as stored now; nil for a revoked, ended or another user's session, or no user")
    func liveSessionOnly() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let signInStore = SignInStore(
                pool: pool, clock: ManualClock(Self.now), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let signIn = try await signInStore.signIn(
                SampleSignIn.request(subject: "user.live", givenName: "Ada", email: "ada@example.com"))
            let other = try await signInStore.signIn(SampleSignIn.request(subject: "user.other", email: "other@example.com"))
            let store = UserStore(pool: pool)

            let live = try await store.user(id: signIn.user.id, liveSession: signIn.sessionID, at: Self.now)
            #expect(live == signIn.user)
            #expect(live?.email == "ada@example.com" && live?.givenName == "Ada")
            try await pool.query("UPDATE users SET email = 'new@example.com' WHERE id = $1", [signIn.user.id])
            let changed = try await store.user(id: signIn.user.id, liveSession: signIn.sessionID, at: Self.now)
            #expect(changed?.email == "new@example.com", "as stored now, not as at sign-in")

            let justBeforeEnd = try await store.user(id: signIn.user.id, liveSession: signIn.sessionID, at: Self.now + 7199)
            #expect(justBeforeEnd != nil)
            let ended = try await store.user(id: signIn.user.id, liveSession: signIn.sessionID, at: Self.now + 7200)
            #expect(ended == nil, "the session ended at its maximum age")
            let anotherUsers = try await store.user(id: signIn.user.id, liveSession: other.sessionID, at: Self.now)
            #expect(anotherUsers == nil)
            let noSuchUser = try await store.user(id: UUID(), liveSession: signIn.sessionID, at: Self.now)
            #expect(noSuchUser == nil)

            _ = try await SessionRevocationStore(pool: pool).revoke(sessionID: signIn.sessionID, reason: "signed out", at: Self.now)
            let revoked = try await store.user(id: signIn.user.id, liveSession: signIn.sessionID, at: Self.now)
            #expect(revoked == nil)
            let otherLive = try await store.user(id: other.user.id, liveSession: other.sessionID, at: Self.now)
            #expect(otherLive?.email == "other@example.com")
        }
    }
}
