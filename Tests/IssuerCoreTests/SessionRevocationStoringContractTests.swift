import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The contract of `SessionRevocationStoring`, held by `SessionRevocationStore` over PostgreSQL
/// (docs/reference.md, "Revocation" and "Refresh tokens and sessions"): a revocation ends a whole
/// sign-in, answers whether it ended a live one, keeps the first time and reason, and never reaches
/// another client's or another user's session. No decision test fakes it, so this suite runs against
/// PostgreSQL alone.
@Suite("Session revocation storage contract, PostgreSQL (reference: Revocation)")
struct SessionRevocationStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Signs `subject` in (SampleSignIn's client); answers the sign-in with its refresh token.
    static func signIn(_ pool: ConnectionPool, subject: String) async throws -> SignIn {
        try await SignInStore(pool: pool, clock: ManualClock(now), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            .signIn(SampleSignIn.request(subject: subject))
    }

    /// The session's revocation time and reason, both nil while it is live.
    static func revocation(_ pool: ConnectionPool, _ sessionID: UUID) async throws -> (at: Date?, reason: String?) {
        let row = try #require(try await pool.query("SELECT revoked_at, revoked_reason FROM sessions WHERE id = $1", [sessionID]).single)
        return (try row.decodeIfPresent(Date.self, column: "revoked_at"), try row.decodeIfPresent(String.self, column: "revoked_reason"))
    }

    @Test("by session id: revoked once, the first time and reason kept; an unknown id answers false")
    func bySession() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let store = SessionRevocationStore(pool: pool)
            let signIn = try await Self.signIn(pool, subject: "revoke.session")
            let other = try await Self.signIn(pool, subject: "revoke.session.other")
            let first = try await store.revoke(sessionID: signIn.sessionID, reason: "signed out", at: Self.now)
            #expect(first)
            let again = try await store.revoke(sessionID: signIn.sessionID, reason: "another reason", at: Self.now + 60)
            #expect(!again, "a revoked session is not revoked twice")
            let kept = try await Self.revocation(pool, signIn.sessionID)
            #expect(kept.at == Self.now && kept.reason == "signed out")
            let unknown = try await store.revoke(sessionID: UUID(), reason: "signed out", at: Self.now)
            #expect(!unknown)
            let untouched = try await Self.revocation(pool, other.sessionID)
            #expect(untouched.at == nil && untouched.reason == nil)
        }
    }

    @Test("by refresh token or session id and client (RFC 7009 §2.1): once, never another client's; a revoked session stops rotating")
    func byClient() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let store = SessionRevocationStore(pool: pool)
            let client = SampleSignIn.request(subject: "x").clientID
            let byToken = try await Self.signIn(pool, subject: "revoke.token")
            let token = try #require(byToken.refreshToken)
            let wrongClient = try await store.revoke(refreshTokenHash: token.hash, clientID: "another-app", reason: "revoked", at: Self.now)
            #expect(!wrongClient)
            let stillLive = try await Self.revocation(pool, byToken.sessionID)
            #expect(stillLive.at == nil)
            let unknownToken = try await store.revoke(
                refreshTokenHash: RefreshToken.generate().hash, clientID: client, reason: "revoked", at: Self.now)
            #expect(!unknownToken)
            let revoked = try await store.revoke(refreshTokenHash: token.hash, clientID: client, reason: "revoked", at: Self.now)
            #expect(revoked)
            let twice = try await store.revoke(refreshTokenHash: token.hash, clientID: client, reason: "again", at: Self.now + 30)
            #expect(!twice)
            let ended = try await Self.revocation(pool, byToken.sessionID)
            #expect(ended.at == Self.now && ended.reason == "revoked")
            let refused = try await RefreshRotationStore(pool: pool).rotate(
                tokenHash: token.hash, successorHash: RefreshToken.generate().hash, clientID: client, requestedScopes: nil,
                now: Self.now + 60, successorExpiresAt: Self.now + 3660)
            #expect(refused?.verdict == .revoked, "a revoked session's refresh token no longer rotates")

            let bySession = try await Self.signIn(pool, subject: "revoke.client")
            let otherClient = try await store.revoke(
                sessionID: bySession.sessionID, clientID: "another-app", reason: "revoked", at: Self.now)
            #expect(!otherClient)
            let live = try await Self.revocation(pool, bySession.sessionID)
            #expect(live.at == nil)
            let ownClient = try await store.revoke(sessionID: bySession.sessionID, clientID: client, reason: "revoked", at: Self.now)
            #expect(ownClient)
            let ownTwice = try await store.revoke(sessionID: bySession.sessionID, clientID: client, reason: "again", at: Self.now + 60)
            #expect(!ownTwice, "a revoked session is not revoked twice")
            let kept = try await Self.revocation(pool, bySession.sessionID)
            #expect(kept.at == Self.now && kept.reason == "revoked")
        }
    }

    @Test("all of a user's: counts the live sessions it ended, then none; another user's stay live")
    func allOfUser() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let store = SessionRevocationStore(pool: pool)
            let first = try await Self.signIn(pool, subject: "revoke.all")
            let second = try await Self.signIn(pool, subject: "revoke.all")
            let third = try await Self.signIn(pool, subject: "revoke.all")
            let neighbour = try await Self.signIn(pool, subject: "revoke.all.neighbour")
            #expect(first.user.id == third.user.id && neighbour.user.id != first.user.id)
            _ = try await store.revoke(sessionID: second.sessionID, reason: "signed out", at: Self.now)
            let count = try await store.revokeAll(userID: first.user.id, reason: "password reset", at: Self.now + 60)
            #expect(count == 2, "the already revoked one is not counted")
            let again = try await store.revokeAll(userID: first.user.id, reason: "password reset", at: Self.now + 60)
            #expect(again == 0)
            let kept = try await Self.revocation(pool, second.sessionID)
            #expect(kept.at == Self.now && kept.reason == "signed out")
            let ended = try await Self.revocation(pool, third.sessionID)
            #expect(ended.at == Self.now + 60 && ended.reason == "password reset")
            let neighbourLive = try await Self.revocation(pool, neighbour.sessionID)
            #expect(neighbourLive.at == nil)
        }
    }
}
