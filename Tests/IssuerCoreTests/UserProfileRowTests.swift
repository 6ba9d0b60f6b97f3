import Foundation
@testable import IssuerCore
@testable import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The one way a user is read from the database (`UserProfile(row:)`), and the store that
/// answers `/userinfo`'s user (docs/reference.md, "UserInfo").
@Suite("User rows (reference: Access tokens, §3.6)")
struct UserProfileRowTests {
    static func insertUser(_ pool: ConnectionPool, givenName: String?, familyName: String?) async throws -> UUID {
        let id = UUID()
        _ = try await pool.query(
            "INSERT INTO users (id, email, email_verified, given_name, family_name) VALUES ($1, $2, $3, $4, $5)",
            [id, "ada@example.com", true, givenName, familyName])
        return id
    }

    @Test("decoded by column name: any order, other columns ignored (a session's `id` included), NULL is nil")
    func byColumnName() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let id = try await Self.insertUser(pool, givenName: "Ada", familyName: nil)
            let row = try #require(try await pool.query("""
                SELECT $2::uuid AS id, u.family_name, 7 AS generation, u.given_name, u.email_verified, u.email, u.id AS user_id
                FROM users u WHERE u.id = $1
                """, [id, UUID()]).single)
            let user = try UserProfile(row: row)
            #expect(user == UserProfile(id: id, email: "ada@example.com", emailVerified: true, givenName: "Ada", familyName: nil))
            #expect(user.name == "Ada")
        }
    }

    @Test("a row without one of the user's columns is an error, not a user with that claim missing")
    func missingColumn() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let id = try await Self.insertUser(pool, givenName: "Ada", familyName: "Lovelace")
            for statement in [
                "SELECT u.id, u.email, u.email_verified, u.given_name, u.family_name FROM users u WHERE u.id = $1",
                "SELECT u.id AS user_id, u.email, u.email_verified, u.given_name FROM users u WHERE u.id = $1",
            ] {
                let row = try #require(try await pool.query(statement, [id]).single)
                #expect(throws: PostgresError.self, "\(statement)") { try UserProfile(row: row) }
            }
        }
    }

    @Test("UserStore answers the user of a live session only: not another user's, a revoked or an expired one")
    func liveSessionUser() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let id = try await Self.insertUser(pool, givenName: "Ada", familyName: "Lovelace")
            let other = try await Self.insertUser(pool, givenName: nil, familyName: nil)
            let (live, revoked, expired) = (UUID(), UUID(), UUID())
            for (session, expiresAt, revokedAt) in [
                (live, now.addingTimeInterval(60), nil), (revoked, now.addingTimeInterval(60), now), (expired, now, nil),
            ] as [(UUID, Date, Date?)] {
                _ = try await pool.query("""
                    INSERT INTO sessions (id, user_id, client_id, scope, auth_time, created_at, last_used_at, expires_at, revoked_at)
                    VALUES ($1, $2, 'clanboards-mobile', 'openid', $3, $3, $3, $4, $5)
                    """, [session, id, now.addingTimeInterval(-60), expiresAt, revokedAt])
            }
            let store = UserStore(pool: pool)
            let user = try await store.user(id: id, liveSession: live, at: now)
            #expect(user == UserProfile(
                id: id, email: "ada@example.com", emailVerified: true, givenName: "Ada", familyName: "Lovelace"))
            #expect(try await store.user(id: other, liveSession: live, at: now) == nil)
            #expect(try await store.user(id: id, liveSession: revoked, at: now) == nil)
            #expect(try await store.user(id: id, liveSession: expired, at: now) == nil, "a session ends at its expires_at")
        }
    }
}
