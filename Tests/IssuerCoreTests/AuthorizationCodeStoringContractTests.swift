import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The hosted flow's one-time codes (docs/reference.md, "Hosted sign-in"; RFC 6749 §4.1.2, RFC 7636 §4.6): a code redeems
/// once, within its 60 s, only with its own client, redirect URI, PKCE challenge (and DPoP key, "DPoP"), storing its session's
/// first refresh token as a hash; a refused code is spent for good by `spendAndRevoke`, which revokes its session. The
/// contract of `AuthorizationCodeStoring`, held by `AuthorizationCodeStore` over PostgreSQL; the decision tests' fake
/// (`AuthorizationCodeGrantDecisionTests`) scripts its answers, so this suite runs against PostgreSQL alone.
@Suite("Authorization code storage contract, PostgreSQL (reference: Hosted sign-in)")
struct AuthorizationCodeStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let registeredRedirect = "https://app.example/cb"
    static let pkceChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    /// The session's hard end: the hosted sign-ins below open sessions of one hour.
    static let sessionEnd = now.addingTimeInterval(3600)

    /// A hosted sign-in of `subject` at `now` through `SignInStore`, as the callback makes it: the session it opened, its
    /// user, and the code (valid `AuthorizationCode.lifetime`), bound to `dpopJKT` when given.
    static func issue(
        _ pool: ConnectionPool, subject: String, dpopJKT: String? = nil
    ) async throws -> (sessionID: UUID, userID: UUID, code: AuthorizationCode) {
        let signIns = SignInStore(pool: pool, clock: ManualClock(now), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(3600))
        let request = SampleSignIn.request(subject: subject)
        let authorization = AuthorizationRequest(
            clientID: request.clientID, redirectURI: registeredRedirect, scopes: request.scopes, state: "client-state",
            codeChallenge: pkceChallenge, nonce: request.nonce, dpopJKT: dpopJKT)
        let issued = try await signIns.signIn(
            request, authorization: authorization, codeLifetime: AuthorizationCode.lifetime, stateHash: RefreshToken.generate().hash,
            stateExpiresAt: now.addingTimeInterval(600))
        return (issued.signIn.sessionID, issued.signIn.user.id, issued.code)
    }

    /// Redeems `code` at `time` with the sign-in's own bindings unless told otherwise; the refresh token asks for a day,
    /// past the session's end.
    static func redeem(
        _ store: any AuthorizationCodeStoring, _ code: AuthorizationCode, client: String = "clanboards-mobile",
        redirectURI: String = AuthorizationCodeStoringContractTests.registeredRedirect,
        challenge: String = AuthorizationCodeStoringContractTests.pkceChallenge, refreshToken: RefreshToken = .generate(),
        at time: Date = AuthorizationCodeStoringContractTests.now, dpop: String? = nil
    ) async throws -> AuthorizationCodeGrant.Redeemed? {
        try await store.redeem(
            code: code, clientID: client, redirectURI: redirectURI, codeChallenge: challenge, refreshToken: refreshToken,
            refreshTokenExpiresAt: time.addingTimeInterval(86_400), now: time, dpopThumbprint: dpop)
    }

    static func count(_ pool: ConnectionPool, _ fromWhere: String, _ parameters: [any PostgresEncodable]) async throws -> Int {
        try await pool.query("SELECT count(*) AS count FROM " + fromWhere, parameters).single?.decode(Int.self, column: "count") ?? -1
    }

    static func isLive(_ pool: ConnectionPool, _ sessionID: UUID) async throws -> Bool {
        try await pool.query("SELECT revoked_at IS NULL AS live FROM sessions WHERE id = $1", [sessionID]).single?
            .decode(Bool.self, column: "live") == true
    }

    @Test("a code redeems once with its bindings, storing the token's hash; a replay answers nil, then spendAndRevoke revokes the session")
    func redeemsOnce() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any AuthorizationCodeStoring = AuthorizationCodeStore(pool: pool)
            let issued = try await Self.issue(pool, subject: "code.once")
            let token = RefreshToken.generate()
            let at = Self.now.addingTimeInterval(59)
            let answer = try await Self.redeem(store, issued.code, refreshToken: token, at: at)
            let redeemed = try #require(answer)
            #expect(redeemed.sessionID == issued.sessionID)
            #expect(redeemed.user.id == issued.userID)
            #expect(redeemed.user.email == "a@example.com")
            #expect(redeemed.scopes == ["openid", "email"])
            #expect(redeemed.nonce == "n")
            #expect(redeemed.authTime == Self.now)
            #expect(redeemed.sessionExpiresAt == Self.sessionEnd)
            #expect(redeemed.dpopThumbprint == nil)
            let stored = try await pool.query(
                "SELECT session_id, generation, expires_at FROM refresh_tokens WHERE token_hash = $1", [token.hash]).single
            let row = try #require(stored, "the refresh token is stored as its hash")
            #expect(try row.decode(UUID.self, column: "session_id") == issued.sessionID)
            #expect(try row.decode(Int.self, column: "generation") == 0)
            #expect(try row.decode(Date.self, column: "expires_at") == Self.sessionEnd, "never past the session's end")

            // RFC 6749 §4.1.2: the replay is refused and stores nothing; the store's redeem alone revokes nothing, the
            // grant's spendAndRevoke that follows a refusal revokes the session the first redemption opened.
            let replayToken = RefreshToken.generate()
            let replay = try await Self.redeem(store, issued.code, refreshToken: replayToken, at: at)
            #expect(replay?.sessionID == nil)
            let replayStored = try await Self.count(pool, "refresh_tokens WHERE token_hash = $1", [replayToken.hash])
            #expect(replayStored == 0)
            let liveAfterReplay = try await Self.isLive(pool, issued.sessionID)
            #expect(liveAfterReplay)
            let revoked = try await store.spendAndRevoke(code: issued.code, now: at)
            #expect(revoked)
            let liveAfterRevoke = try await Self.isLive(pool, issued.sessionID)
            #expect(!liveAfterRevoke)
        }
    }

    @Test("a wrong client, redirect URI, challenge or DPoP key, or an expired code, answers nil and leaves the code redeemable")
    func mismatchesLeaveTheCode() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any AuthorizationCodeStoring = AuthorizationCodeStore(pool: pool)
            let issued = try await Self.issue(pool, subject: "code.mismatch", dpopJKT: "jkt-1")
            let otherClient = try await Self.redeem(store, issued.code, client: "another-client", dpop: "jkt-1")
            #expect(otherClient?.sessionID == nil)
            let otherRedirect = try await Self.redeem(store, issued.code, redirectURI: Self.registeredRedirect + "/", dpop: "jkt-1")
            #expect(otherRedirect?.sessionID == nil, "compared by exact string")
            let otherChallenge = try await Self.redeem(store, issued.code, challenge: String(repeating: "A", count: 43), dpop: "jkt-1")
            #expect(otherChallenge?.sessionID == nil)
            let noProof = try await Self.redeem(store, issued.code)
            #expect(noProof?.sessionID == nil, "a code bound to a DPoP key needs a proof from it")
            let otherKey = try await Self.redeem(store, issued.code, dpop: "jkt-2")
            #expect(otherKey?.sessionID == nil)
            let expired = try await Self.redeem(store, issued.code, at: Self.now.addingTimeInterval(60), dpop: "jkt-1")
            #expect(expired?.sessionID == nil, "valid for 60 s: expired at its expiry")

            // The statement consumes only a matching code: none of the refusals above spent it or touched its session.
            let tokens = try await Self.count(pool, "refresh_tokens WHERE session_id = $1", [issued.sessionID])
            #expect(tokens == 0)
            let live = try await Self.isLive(pool, issued.sessionID)
            #expect(live)
            let redeemed = try await Self.redeem(store, issued.code, at: Self.now.addingTimeInterval(59), dpop: "jkt-1")
            #expect(redeemed?.sessionID == issued.sessionID)
            #expect(redeemed?.dpopThumbprint == "jkt-1", "the session is bound to the redemption's key")
        }
    }

    @Test("spendAndRevoke spends a refused code for good and revokes its session once; another sign-in's code and session are untouched")
    func spentAndRevoked() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any AuthorizationCodeStoring = AuthorizationCodeStore(pool: pool)
            let refused = try await Self.issue(pool, subject: "code.refused")
            let other = try await Self.issue(pool, subject: "code.other")
            let unknown = try await store.spendAndRevoke(code: .generate(), now: Self.now)
            #expect(!unknown, "an unknown code revokes nothing")
            let first = try await store.spendAndRevoke(code: refused.code, now: Self.now)
            #expect(first)
            let again = try await store.spendAndRevoke(code: refused.code, now: Self.now)
            #expect(!again, "its session is revoked already")
            let reason = try await pool.query("SELECT revoked_reason FROM sessions WHERE id = $1", [refused.sessionID]).single?
                .decodeIfPresent(String.self, column: "revoked_reason")
            #expect(reason == "authorization code replayed or misused")
            let late = try await Self.redeem(store, refused.code)
            #expect(late?.sessionID == nil, "spent for good, even with its own bindings")

            let otherLive = try await Self.isLive(pool, other.sessionID)
            #expect(otherLive)
            let otherRedeemed = try await Self.redeem(store, other.code)
            #expect(otherRedeemed?.sessionID == other.sessionID)
        }
    }

    @Test("eight concurrent redemptions of one code: exactly one answers the session, and one refresh token is stored")
    func concurrentRedemptions() async throws {
        try await TestCluster.withMigratedPool(size: 8) { pool in
            let store: any AuthorizationCodeStoring = AuthorizationCodeStore(pool: pool)
            // Several rounds: each code's race is decided once.
            for round in 0..<4 {
                let issued = try await Self.issue(pool, subject: "code.race")
                let answers = try await withThrowingTaskGroup(of: UUID?.self) { group in
                    for _ in 0..<8 {
                        group.addTask { try await Self.redeem(store, issued.code)?.sessionID }
                    }
                    return try await group.reduce(into: [UUID?]()) { $0.append($1) }
                }
                #expect(answers.count == 8, "round \(round)")
                #expect(answers.compactMap { $0 } == [issued.sessionID], "round \(round)")
                let tokens = try await Self.count(pool, "refresh_tokens WHERE session_id = $1", [issued.sessionID])
                #expect(tokens == 1, "round \(round)")
            }
        }
    }
}
