import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The hosted flow's sign-in (docs/reference.md, "Hosted sign-in"): a callback's sealed state is single-use, so the one
/// sign-in that spends it is the only one it ever makes, however many replays race it, and it answers a one-time code
/// with the session it opened. The contract of `HostedSignInStoring`, held by `SignInStore` over PostgreSQL and by
/// `FakeHostedSignInStore` alike (`StoreBackend`); that one subject stays one user, and where the code is stored, are
/// PostgreSQL's alone (the fake makes a new user for every sign-in).
@Suite("Hosted sign-in storage contract, PostgreSQL and in memory (reference: Hosted sign-in)")
struct HostedSignInStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let redirectURI = "https://app.example/cb"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    /// Runs `body` with the store of `backend`, its clock at `now`, and a count of the sign-ins it made (PostgreSQL's
    /// sessions; the fake's recorded requests).
    static func withStore(
        _ backend: StoreBackend, size: Int = 4,
        _ body: (any HostedSignInStoring, _ signedIn: @Sendable () async throws -> Int) async throws -> Void
    ) async throws {
        let clock = ManualClock(now)
        switch backend {
        case .postgres:
            try await TestCluster.withMigratedPool(size: size) { pool in
                let store = SignInStore(pool: pool, clock: clock, refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
                try await body(store) {
                    try await pool.query("SELECT count(*) AS count FROM sessions").single?.decode(Int.self, column: "count") ?? -1
                }
            }
        case .memory:
            let store = FakeHostedSignInStore(clock: clock)
            try await body(store) { store.requests.count }
        }
    }

    /// A state's hash as the callback makes it: 32 bytes.
    static func newState() -> [UInt8] {
        RefreshToken.generate().hash
    }

    /// A hosted sign-in of `subject` spending `state`, for a request of SampleSignIn's client.
    static func signIn(
        _ store: any HostedSignInStoring, subject: String, state: [UInt8]
    ) async throws -> (signIn: SignIn, code: AuthorizationCode) {
        let request = SampleSignIn.request(subject: subject)
        let authorization = AuthorizationRequest(
            clientID: request.clientID, redirectURI: redirectURI, scopes: request.scopes, state: "client-state",
            codeChallenge: challenge, nonce: request.nonce)
        return try await store.signIn(
            request, authorization: authorization, codeLifetime: AuthorizationCode.lifetime, stateHash: state,
            stateExpiresAt: now.addingTimeInterval(600))
    }

    @Test("a state signs in once: spent from then on, and a second sign-in with it throws StateAlreadySpent and signs no one in",
          arguments: StoreBackend.allCases)
    func stateSpentOnce(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store, signedIn in
            let state = Self.newState()
            let other = Self.newState()
            let before = try await store.isSpent(stateHash: state)
            #expect(!before)
            let first = try await Self.signIn(store, subject: "hosted.once", state: state)
            #expect(first.signIn.user.email == "a@example.com", "the request's identity")
            #expect(first.signIn.authTime == Self.now)
            #expect(first.signIn.sessionExpiresAt > Self.now)
            #expect(AuthorizationCode.isWellFormed(first.code.value))
            let spent = try await store.isSpent(stateHash: state)
            #expect(spent)
            let otherSpent = try await store.isSpent(stateHash: other)
            #expect(!otherSpent, "only the state it spent")

            do {
                _ = try await Self.signIn(store, subject: "hosted.replay", state: state)
                Issue.record("a replayed state signed someone in")
            } catch is StateAlreadySpent {}
            let afterReplay = try await signedIn()
            #expect(afterReplay == 1, "the replay signed no one in")

            let next = try await Self.signIn(store, subject: "hosted.replay", state: other)
            #expect(next.code != first.code)
            #expect(next.signIn.sessionID != first.signIn.sessionID)
            let afterNext = try await signedIn()
            #expect(afterNext == 2)
        }
    }

    @Test("eight concurrent sign-ins with one state: exactly one signs in, the others throw StateAlreadySpent",
          arguments: StoreBackend.allCases)
    func concurrentState(backend: StoreBackend) async throws {
        try await Self.withStore(backend, size: 8) { store, signedIn in
            let state = Self.newState()
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do {
                            _ = try await Self.signIn(store, subject: "hosted.race", state: state)
                            return true
                        } catch is StateAlreadySpent {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.count == 8)
            #expect(outcomes.filter { $0 }.count == 1)
            let count = try await signedIn()
            #expect(count == 1)
        }
    }

    @Test("PostgreSQL: the code is stored as its hash, bound to the request and its session, no refresh token yet; one subject is one user")
    func storedCode() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any HostedSignInStoring = SignInStore(
                pool: pool, clock: ManualClock(Self.now), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let first = try await Self.signIn(store, subject: "hosted.user", state: Self.newState())
            let second = try await Self.signIn(store, subject: "hosted.user", state: Self.newState())
            #expect(first.signIn.user.id == second.signIn.user.id, "the same subject is the same user, whichever state")
            #expect(first.signIn.sessionID != second.signIn.sessionID)
            #expect(first.code != second.code)
            let stored = try await pool.query("""
                SELECT session_id, client_id, redirect_uri, code_challenge, expires_at, redeemed_at IS NULL AS unspent, dpop_jkt
                FROM authorization_codes WHERE code_hash = $1
                """, [first.code.hash]).single
            let row = try #require(stored, "the code is stored as its hash")
            #expect(try row.decode(UUID.self, column: "session_id") == first.signIn.sessionID)
            #expect(try row.decode(String.self, column: "client_id") == "clanboards-mobile")
            #expect(try row.decode(String.self, column: "redirect_uri") == Self.redirectURI)
            #expect(try row.decode(String.self, column: "code_challenge") == Self.challenge)
            #expect(try row.decode(Date.self, column: "expires_at") == Self.now.addingTimeInterval(60))
            #expect(try row.decode(Bool.self, column: "unspent"))
            #expect(try row.decodeIfPresent(String.self, column: "dpop_jkt") == nil)
            let sessions = try await pool.query("SELECT count(*) AS count FROM sessions WHERE user_id = $1", [first.signIn.user.id]).single?
                .decode(Int.self, column: "count")
            #expect(sessions == 2)
            let tokens = try await pool.query("SELECT count(*) AS count FROM refresh_tokens").single?.decode(Int.self, column: "count")
            #expect(tokens == 0, "the refresh token is issued when the code is redeemed")
        }
    }
}
