import Foundation
@testable import IssuerCore
@testable import IssuerStorage
import Postgres
import Testing
import TestSupport

/// Every account change checks, in the statement that makes it, that the proving session is still
/// live (docs/reference.md, "Two proofs of one session"): the stores are called as the services
/// call them once both proofs passed, with a proving session revoked (or ended) in between.
@Suite("Account changes re-check the proving session")
struct AccountChangeStoreTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Two sessions of one user signed in with Apple: `proving` is revoked after its proof would
    /// have passed; `other` stays live. The sessions end two hours after `now`.
    func twoSessions(_ pool: ConnectionPool, subject: String) async throws -> (userID: UUID, proving: UUID, other: UUID) {
        let store = SignInStore(pool: pool, clock: ManualClock(now), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
        let proving = try await store.signIn(SampleSignIn.request(subject: subject))
        let other = try await store.signIn(SampleSignIn.request(subject: subject))
        #expect(proving.user.id == other.user.id)
        return (proving.user.id, proving.sessionID, other.sessionID)
    }

    func providers(_ pool: ConnectionPool, _ userID: UUID) async throws -> [String] {
        try await pool.query("SELECT provider FROM identities WHERE user_id = $1 ORDER BY provider", [userID]).rows
            .map { try $0.decode(String.self, column: "provider") }
    }

    func isLive(_ pool: ConnectionPool, _ sessionID: UUID) async throws -> Bool {
        try await pool.query("SELECT revoked_at IS NULL AS live FROM sessions WHERE id = $1", [sessionID]).single?
            .decode(Bool.self, column: "live") == true
    }

    @Test("link and unlink: a proving session revoked or ended since its proof changes nothing; a live one does")
    func identities() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let (userID, proving, other) = try await twoSessions(pool, subject: "race.identities")
            let store = AccountIdentitiesStore(pool: pool, custodyProvider: "apple")
            let google = ExternalIdentity(provider: "google", subject: "g-race", audience: "web", email: "a@example.com", emailVerified: true)
            #expect(try await SessionRevocationStore(pool: pool).revoke(sessionID: proving, reason: "signed out elsewhere", at: now))

            #expect(try await store.link(google, userID: userID, sessionID: proving, now: now) == .sessionEnded)
            #expect(try await providers(pool, userID) == ["apple"], "nothing linked")
            #expect(try await store.link(google, userID: userID, sessionID: other, now: now + 7200) == .sessionEnded, "ended")
            #expect(try await store.link(google, userID: userID, sessionID: UUID(), now: now) == .sessionEnded, "not a session of the user")
            #expect(try await providers(pool, userID) == ["apple"])

            #expect(try await store.link(google, userID: userID, sessionID: other, now: now) == .linked)
            #expect(try await providers(pool, userID) == ["apple", "google"])

            guard case .sessionEnded = try await store.unlink(provider: "google", userID: userID, sessionID: proving, now: now) else {
                Issue.record("a revoked proving session unlinked")
                return
            }
            guard case .sessionEnded = try await store.unlink(provider: "google", userID: userID, sessionID: other, now: now + 7200) else {
                Issue.record("an ended proving session unlinked")
                return
            }
            #expect(try await providers(pool, userID) == ["apple", "google"], "nothing unlinked")
            guard case .unlinked = try await store.unlink(provider: "google", userID: userID, sessionID: other, now: now) else {
                Issue.record("a live proving session did not unlink")
                return
            }
            #expect(try await providers(pool, userID) == ["apple"])
        }
    }

    @Test("revoking a device, or every other one: a proving session revoked or ended since its proof revokes nothing; a live one does")
    func sessions() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let (userID, proving, other) = try await twoSessions(pool, subject: "race.sessions")
            let store = AccountSessionsStore(pool: pool)
            #expect(try await SessionRevocationStore(pool: pool).revoke(sessionID: proving, reason: "signed out elsewhere", at: now))

            #expect(try await store.revoke(sessionID: other, userID: userID, provingSessionID: proving, now: now) == nil)
            #expect(try await store.revokeOthers(userID: userID, keeping: proving, now: now) == nil)
            #expect(try await isLive(pool, other), "nothing revoked")

            // The live session proving for itself: ended at the session's end, revocable before it.
            #expect(try await store.revokeOthers(userID: userID, keeping: other, now: now + 7200) == nil)
            #expect(try await store.revoke(sessionID: other, userID: userID, provingSessionID: other, now: now + 7200) == nil)
            #expect(try await isLive(pool, other))
            #expect(try await store.revokeOthers(userID: userID, keeping: other, now: now) == 0, "the revoked one is not counted again")
            #expect(try await store.revoke(sessionID: proving, userID: userID, provingSessionID: other, now: now) == false, "not live: 404")
            #expect(try await store.revoke(sessionID: other, userID: userID, provingSessionID: other, now: now) == true)
            #expect(!(try await isLive(pool, other)))
        }
    }
}
