import Foundation
import HummingbirdTesting
import IssuerCore
import IssuerStorage
@testable import IssuerServer
import Postgres
import Testing
import TestSupport

/// The upgrade from the schema of the release before identities and devices (migrations 1 to 5)
/// loses nothing (reference: Linked identities): a database written by that schema keeps every
/// user, identity and session, the internal `sub` of every user is unchanged, and the new
/// account endpoints answer for it.
@Suite("Schema upgrade from the previous release")
struct SchemaUpgradeTests {
    @Test("users, identities and sessions written under migrations 1–5 survive the rest; the same Apple account is the same user; /account and /account/sessions answer")
    func upgrade() async throws {
        let conninfo = try await TestCluster.freshDatabase()
        // What the previous release's sign-in statement wrote.
        let userID = UUID(), sessionID = UUID(), now = Date()
        try await ConnectionPool(conninfo: conninfo, size: 1).closing { pool in
            let all = try IssuerMigrations.builtIn()
            try await Migrator(pool: pool).migrate(all.filter { $0.version <= 5 })
            try await pool.query("""
                INSERT INTO users (id, email, email_verified, created_at, updated_at) VALUES ($1, 'old@example.com', true, $2, $2);
                """, [userID, now])
            try await pool.query("""
                INSERT INTO identities (provider, subject, user_id, audience, created_at, last_sign_in_at)
                VALUES ('apple', '001.before', $1, 'com.example.app', $2, $2)
                """, [userID, now])
            try await pool.query("""
                INSERT INTO sessions (id, user_id, client_id, scope, auth_time, created_at, last_used_at, expires_at)
                VALUES ($1, $2, 'clanboards-mobile', 'openid', $3, $3, $3, $4)
                """, [sessionID, userID, now, now.addingTimeInterval(3600)])
            try await Migrator(pool: pool).migrate(all)
            #expect(try await pool.query("SELECT user_id FROM identities WHERE subject = '001.before'").single?.decode(UUID.self, column: "user_id") == userID)
            #expect(try await pool.query("SELECT email FROM identities WHERE subject = '001.before'").single?.decodeIfPresent(String.self, column: "email")
                == "old@example.com", "an identity from before gets its user's e-mail")
            #expect(try await pool.query("SELECT provider FROM sessions WHERE id = $1", [sessionID]).single?.decodeIfPresent(String.self, column: "provider") == nil)
        }

        // The upgraded database behind a running issuer: the Apple account signs in as the same user.
        try await Self.withIssuer(on: conninfo) { fixture, client in
            let tokens = try await AppleTestRig.signIn(client, fixture, subject: "001.before", code: nil)
            #expect(try AppleTestRig.userID(fixture, tokens) == userID, "the internal sub is unchanged")
            let account = try await AccountRequest.send(client, .get, "/account", tokens, withRefresh: false)
            #expect(AccountRequest.providers(account) == ["apple"])
            let sessions = AccountRequest.sessionIDs(try await AccountRequest.send(client, .get, "/account/sessions", tokens, withRefresh: false))
            #expect(sessions.count == 2 && sessions[sessionID.uuidString.lowercased()] == false, "the old session is listed")
        }
    }

    /// An issuer application on the database at `conninfo` (already migrated).
    static func withIssuer(
        on conninfo: String, _ body: @escaping @Sendable (IssuerTestFixture, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await IssuerServerTests.withIssuer(database: conninfo) { (fixture: IssuerTestFixture) in
            try await fixture.test { client in try await body(fixture, client) }
        }
    }
}
