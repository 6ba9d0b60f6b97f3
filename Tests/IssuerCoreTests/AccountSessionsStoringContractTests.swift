import Foundation
@testable import IssuerCore
@testable import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The user's own list of signed-in devices (docs/reference.md, "Signed-in devices"; "Two proofs of
/// one session"): the live sessions of one user, newest first, and signing out one device or every
/// other, each statement naming the user, so another user's session is never listed or revoked. The
/// contract of `AccountSessionsStoring`, held by `AccountSessionsStore` over PostgreSQL (no in-memory
/// store exists); a proving session revoked or ended since its proof is `AccountChangeStoreTests`' part.
@Suite("Signed-in devices storage contract, PostgreSQL (reference: Signed-in devices)")
struct AccountSessionsStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A native sign-in of the Apple user `subject` at the clock's time, ending `maxAge` later.
    static func signIn(
        _ pool: ConnectionPool, _ clock: ManualClock, subject: String, client: String = "clanboards-mobile",
        userAgent: String? = "Tests/1.0", maxAge: Duration = .seconds(7200)
    ) async throws -> SignIn {
        var request = SampleSignIn.request(subject: subject)
        request.clientID = client
        request.userAgent = userAgent
        return try await SignInStore(pool: pool, clock: clock, refreshTokenTTL: .seconds(3600), sessionMaxAge: maxAge).signIn(request)
    }

    /// A hosted sign-in of `subject` whose authorization code was never redeemed: no device yet.
    static func unredeemed(_ pool: ConnectionPool, _ clock: ManualClock, subject: String, state: UInt8) async throws -> UUID {
        let request = SampleSignIn.request(subject: subject)
        let authorization = AuthorizationRequest(
            clientID: request.clientID, redirectURI: "clanboards://oauthredirect", scopes: request.scopes, state: "s",
            codeChallenge: "challenge", nonce: nil)
        let hosted = try await SignInStore(pool: pool, clock: clock, refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            .signIn(
                request, authorization: authorization, codeLifetime: .seconds(60), stateHash: Array(repeating: state, count: 32),
                stateExpiresAt: clock.now.addingTimeInterval(600))
        return hosted.signIn.sessionID
    }

    static func revokedAt(_ pool: ConnectionPool, _ sessionID: UUID) async throws -> Date? {
        try await pool.query("SELECT revoked_at FROM sessions WHERE id = $1", [sessionID]).single?
            .decodeIfPresent(Date.self, column: "revoked_at")
    }

    @Test("live lists the user's live sessions newest first, with client, provider, times, user agent; no revoked, ended or unredeemed one")
    func liveSessions() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let clock = ManualClock(Self.now)
            let store = AccountSessionsStore(pool: pool)
            let phone = try await Self.signIn(pool, clock, subject: "devices.a")
            let userID = phone.user.id
            clock.advance(by: 60)
            let browser = try await Self.signIn(pool, clock, subject: "devices.a", client: "clanboards-web", userAgent: nil)
            clock.advance(by: 60)
            let revoked = try await Self.signIn(pool, clock, subject: "devices.a")
            let revocations = SessionRevocationStore(pool: pool)
            let wasRevoked = try await revocations.revoke(sessionID: revoked.sessionID, reason: "test", at: clock.now)
            #expect(wasRevoked)
            let brief = try await Self.signIn(pool, clock, subject: "devices.a", maxAge: .seconds(600))
            _ = try await Self.unredeemed(pool, clock, subject: "devices.a", state: 1)
            let stranger = try await Self.signIn(pool, clock, subject: "devices.b")
            #expect(Set([browser.user.id, revoked.user.id, brief.user.id]) == Set([userID]))
            #expect(stranger.user.id != userID)
            // The phone refreshes later: it was last used when its newest token was issued.
            let refreshedAt = Self.now + 500
            let token = try #require(phone.refreshToken)
            let rotated = try await RefreshRotationStore(pool: pool).rotate(
                tokenHash: token.hash, successorHash: RefreshToken.generate().hash, clientID: "clanboards-mobile", requestedScopes: nil,
                now: refreshedAt, successorExpiresAt: refreshedAt + 3600)
            #expect(rotated?.verdict == .rotated)

            let beforeEnd = try await store.live(userID: userID, now: Self.now + 719)
            #expect(beforeEnd.map(\.sessionID) == [brief.sessionID, browser.sessionID, phone.sessionID])
            let atEnd = try await store.live(userID: userID, now: Self.now + 720)
            #expect(atEnd == [
                AccountSession(
                    sessionID: browser.sessionID, clientID: "clanboards-web", provider: "apple", createdAt: Self.now + 60,
                    lastUsedAt: Self.now + 60, userAgent: nil),
                AccountSession(
                    sessionID: phone.sessionID, clientID: "clanboards-mobile", provider: "apple", createdAt: Self.now,
                    lastUsedAt: refreshedAt, userAgent: "Tests/1.0"),
            ], "the brief session ended at its end; the revoked and the unredeemed ones never show")
            let strangers = try await store.live(userID: stranger.user.id, now: Self.now + 720)
            #expect(strangers.map(\.sessionID) == [stranger.sessionID])
            let nobody = try await store.live(userID: UUID(), now: Self.now + 720)
            #expect(nobody.isEmpty)
        }
    }

    @Test("revoke signs out one live session of the user, once; another user's session or an unredeemed sign-in answers false and stays")
    func revokeOne() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let clock = ManualClock(Self.now)
            let store = AccountSessionsStore(pool: pool)
            let phone = try await Self.signIn(pool, clock, subject: "revoke.a")
            let tablet = try await Self.signIn(pool, clock, subject: "revoke.a")
            let hosted = try await Self.unredeemed(pool, clock, subject: "revoke.a", state: 2)
            let stranger = try await Self.signIn(pool, clock, subject: "revoke.b")
            let userID = phone.user.id
            let later = Self.now + 60

            let foreign = try await store.revoke(
                sessionID: stranger.sessionID, userID: userID, provingSessionID: phone.sessionID, now: later)
            #expect(foreign == false, "another user's session is no session of this user")
            let posing = try await store.revoke(
                sessionID: stranger.sessionID, userID: stranger.user.id, provingSessionID: phone.sessionID, now: later)
            #expect(posing == nil, "a session of another user proves nothing")
            let unredeemed = try await store.revoke(sessionID: hosted, userID: userID, provingSessionID: phone.sessionID, now: later)
            #expect(unredeemed == false, "no device yet")
            let unknown = try await store.revoke(sessionID: UUID(), userID: userID, provingSessionID: phone.sessionID, now: later)
            #expect(unknown == false)
            for untouched in [stranger.sessionID, hosted] {
                let at = try await Self.revokedAt(pool, untouched)
                #expect(at == nil)
            }
            let strangers = try await store.live(userID: stranger.user.id, now: later)
            #expect(strangers.map(\.sessionID) == [stranger.sessionID])

            let revoked = try await store.revoke(sessionID: tablet.sessionID, userID: userID, provingSessionID: phone.sessionID, now: later)
            #expect(revoked == true)
            let again = try await store.revoke(
                sessionID: tablet.sessionID, userID: userID, provingSessionID: phone.sessionID, now: later + 1)
            #expect(again == false, "revoked already: no live session")
            let revokedAt = try await Self.revokedAt(pool, tablet.sessionID)
            #expect(revokedAt == later, "the first revocation's time stays")
            let left = try await store.live(userID: userID, now: later)
            #expect(left.map(\.sessionID) == [phone.sessionID])
        }
    }

    @Test("revokeOthers signs out and counts every other live session of the user, an unredeemed one too; the kept one and others' stay")
    func revokeOthers() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let clock = ManualClock(Self.now)
            let store = AccountSessionsStore(pool: pool)
            let keep = try await Self.signIn(pool, clock, subject: "others.a")
            let second = try await Self.signIn(pool, clock, subject: "others.a")
            let third = try await Self.signIn(pool, clock, subject: "others.a", client: "clanboards-web")
            let gone = try await Self.signIn(pool, clock, subject: "others.a")
            let wasRevoked = try await SessionRevocationStore(pool: pool).revoke(sessionID: gone.sessionID, reason: "test", at: Self.now)
            #expect(wasRevoked)
            let brief = try await Self.signIn(pool, clock, subject: "others.a", maxAge: .seconds(30))
            let hosted = try await Self.unredeemed(pool, clock, subject: "others.a", state: 3)
            let stranger = try await Self.signIn(pool, clock, subject: "others.b")
            let userID = keep.user.id
            let later = Self.now + 60

            let posing = try await store.revokeOthers(userID: stranger.user.id, keeping: keep.sessionID, now: later)
            #expect(posing == nil, "a session of another user proves nothing")
            let strangerBefore = try await Self.revokedAt(pool, stranger.sessionID)
            #expect(strangerBefore == nil)

            let count = try await store.revokeOthers(userID: userID, keeping: keep.sessionID, now: later)
            #expect(count == 3, "the second, the third and the unredeemed sign-in")
            for revoked in [second.sessionID, third.sessionID, hosted] {
                let at = try await Self.revokedAt(pool, revoked)
                #expect(at == later)
            }
            let goneAt = try await Self.revokedAt(pool, gone.sessionID)
            #expect(goneAt == Self.now, "revoked before: left as it was")
            for untouched in [keep.sessionID, brief.sessionID, stranger.sessionID] {
                let at = try await Self.revokedAt(pool, untouched)
                #expect(at == nil, "the kept one, an ended one, another user's")
            }
            let left = try await store.live(userID: userID, now: later)
            #expect(left.map(\.sessionID) == [keep.sessionID])
            let strangers = try await store.live(userID: stranger.user.id, now: later)
            #expect(strangers.map(\.sessionID) == [stranger.sessionID])
            let again = try await store.revokeOthers(userID: userID, keeping: keep.sessionID, now: later + 1)
            #expect(again == 0)
        }
    }
}
