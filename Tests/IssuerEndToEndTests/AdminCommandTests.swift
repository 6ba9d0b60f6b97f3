import Foundation
import IssuerCore
import Postgres
import Testing
import TestSupport

@Suite("issuer sessions and users, end to end")
struct AdminCommandTests {
    @Test("list, show, revoke one session, revoke all; safe to re-run; bad input is one line and exit 1")
    func adminCommands() async throws {
        try await MigratedDatabase.with { database, pool in
            let directory = FileManager.default.temporaryDirectory
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let identity = ExternalIdentity(provider: "apple", subject: "001.admin", audience: "com.example.app", email: "ops@example.com", emailVerified: true)
            let first = try await store.signIn(SignInRequest(identity: identity, givenName: "Ada", clientID: "clanboards-mobile", scopes: ["openid"], userAgent: "App/1", clientIP: "198.51.100.7"))
            let second = try await store.signIn(SignInRequest(identity: identity, clientID: "clanboards-mobile", scopes: ["openid"]))
            let sub = first.user.subject
            let sid = first.sessionID.uuidString.lowercased()

            let list = try await ServeCommandTests.run(["sessions", "list", "--user", sub, "--database-url", database], in: directory)
            #expect(list.code == 0, "\(list.output)")
            #expect(list.output.contains(sid))
            #expect(list.output.contains(second.sessionID.uuidString.lowercased()))
            #expect(list.output.contains("198.51.100.7"))
            #expect(list.output.contains("active"))

            let show = try await ServeCommandTests.run(["users", "show", sub, "--database-url", database], in: directory)
            #expect(show.code == 0)
            #expect(show.output.contains("ops@example.com"))
            #expect(show.output.contains("apple  001.admin"))
            #expect(show.output.contains("Sessions (2)"))

            for _ in 0..<2 {
                let revoke = try await ServeCommandTests.run(["sessions", "revoke", "--session", sid, "--database-url", database], in: directory)
                #expect(revoke.code == 0, "safe to re-run: \(revoke.output)")
            }
            let revoked = try await pool.query("SELECT revoked_reason FROM sessions WHERE id = $1", [first.sessionID]).single?.decodeIfPresent(String.self, at: 0)
            #expect(revoked == "revoked by operator")
            let stillLive = try await pool.query("SELECT revoked_at IS NULL FROM sessions WHERE id = $1", [second.sessionID]).single?.decode(Bool.self, at: 0)
            #expect(stillLive == true)

            let all = try await ServeCommandTests.run(["sessions", "revoke", "--user", sub, "--database-url", database], in: directory)
            #expect(all.output.contains("Revoked 1 session"))
            #expect(try await pool.query("SELECT count(*) FROM sessions WHERE revoked_at IS NULL").single!.decode(Int.self, at: 0) == 0)

            let bad = try await ServeCommandTests.run(["users", "show", "not-a-uuid", "--database-url", database], in: directory)
            #expect(bad.code == 1)
            #expect(bad.output.split(separator: "\n").count == 1)
            let missing = try await ServeCommandTests.run(["users", "show", UUID().uuidString, "--database-url", database], in: directory)
            #expect(missing.code == 1)
            #expect(missing.output.contains("no user"))
            let both = try await ServeCommandTests.run(["sessions", "revoke", "--user", sub, "--session", sid], in: directory)
            #expect(both.code != 0)
            #expect(both.output.contains("exactly one"))
        }
    }
}
