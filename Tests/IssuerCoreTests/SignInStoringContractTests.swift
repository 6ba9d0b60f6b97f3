import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The contract of `SignInStoring`, held by `SignInStore` over PostgreSQL (docs/reference.md,
/// "Native sign-in" and "Refresh tokens and sessions"): one user per identity however many first
/// sign-ins race, a session and a hashed refresh token per sign-in, and a profile that changes
/// together. The decision tests' fake (`IdentityExchangeDecisionTests`) scripts its answers, so this
/// suite runs against PostgreSQL alone; linking by e-mail is `EmailLinkingStoreTests`'.
@Suite("Sign-in storage contract, PostgreSQL (reference: Native sign-in)")
struct SignInStoringContractTests {
    @Test("16 concurrent first sign-ins of one Apple sub create exactly one user, and 16 sessions")
    func concurrentFirstSignIns() async throws {
        try await TestCluster.withMigratedPool(size: 16) { pool in
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let users = try await withThrowingTaskGroup(of: UUID.self) { group in
                for _ in 0..<16 {
                    group.addTask { try await store.signIn(SampleSignIn.request(subject: "race.sub")).user.id }
                }
                return try await group.reduce(into: Set<UUID>()) { $0.insert($1) }
            }
            #expect(users.count == 1)
            #expect(try await pool.query("SELECT count(*) AS count FROM users").single!.decode(Int.self, column: "count") == 1)
            #expect(try await pool.query("SELECT count(*) AS count FROM identities").single!.decode(Int.self, column: "count") == 1)
            #expect(try await pool.query("SELECT count(*) AS count FROM sessions").single!.decode(Int.self, column: "count") == 16)
        }
    }

    @Test("the session records what reference: Refresh tokens and sessions lists; the refresh token is stored as its hash with a capped expiry")
    func sessionRecord() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            let store = SignInStore(pool: pool, clock: clock, refreshTokenTTL: .seconds(10_000), sessionMaxAge: .seconds(5_000))
            let signIn = try await store.signIn(SampleSignIn.request(subject: "record.sub", givenName: "Ada"))
            let row = try #require(try await pool.query("""
                SELECT s.user_id, s.client_id, s.scope, s.nonce, s.auth_time, s.expires_at AS session_expires_at, s.user_agent, s.client_ip,
                       r.generation, r.expires_at AS token_expires_at, r.parent_hash IS NULL AS first_generation
                FROM sessions s JOIN refresh_tokens r ON r.session_id = s.id WHERE s.id = $1
                """, [signIn.sessionID]).single)
            #expect(try row.decode(UUID.self, column: "user_id") == signIn.user.id)
            #expect(try row.decode(String.self, column: "client_id") == "clanboards-mobile")
            #expect(try row.decode(String.self, column: "scope") == "openid email")
            #expect(try row.decode(String.self, column: "nonce") == "n")
            #expect(try row.decode(Date.self, column: "auth_time") == clock.now)
            #expect(try row.decode(Date.self, column: "session_expires_at") == clock.now.addingTimeInterval(5_000))
            #expect(try row.decode(String.self, column: "user_agent") == "Tests/1.0")
            #expect(try row.decode(String.self, column: "client_ip") == "192.0.2.1")
            #expect(try row.decode(Int.self, column: "generation") == 0)
            #expect(try row.decode(Date.self, column: "token_expires_at") == clock.now.addingTimeInterval(5_000), "never past the session's max age")
            #expect(try row.decode(Bool.self, column: "first_generation"))
            #expect(signIn.user.givenName == "Ada")
        }
    }

    @Test("a later sign-in updates the email but never erases a stored name")
    func profileUpdates() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let first = try await store.signIn(SampleSignIn.request(subject: "profile.sub", givenName: "Ada", email: "old@example.com"))
            let second = try await store.signIn(SampleSignIn.request(subject: "profile.sub", givenName: nil, email: "new@example.com"))
            #expect(first.user.id == second.user.id)
            #expect(second.user.givenName == "Ada")
            #expect(second.user.email == "new@example.com")
        }
    }

    @Test("an e-mail and its verified and relay flags change together: a token with a new e-mail but no email_verified does not inherit the old address's verification")
    func emailFactsTogether() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            _ = try await store.signIn(SampleSignIn.request(subject: "facts.sub", email: "verified@example.com"))
            var unverified = SampleSignIn.request(subject: "facts.sub", email: "claimed@example.com")
            unverified.identity.emailVerified = nil
            unverified.identity.isPrivateEmail = nil
            let second = try await store.signIn(unverified)
            #expect(second.user.email == "claimed@example.com")
            #expect(second.user.emailVerified == nil, "not the previous address's true")
            let identity = try #require(try await pool.query("SELECT email, email_verified FROM identities WHERE subject = 'facts.sub'").single)
            #expect(try identity.decodeIfPresent(Bool.self, column: "email_verified") == nil)
            // A token without any e-mail keeps what is stored.
            let third = try await store.signIn(SampleSignIn.request(subject: "facts.sub", email: nil))
            #expect(third.user.email == "claimed@example.com")
        }
    }
}
