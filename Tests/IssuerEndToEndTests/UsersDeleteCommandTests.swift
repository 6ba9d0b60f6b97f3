import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

@Suite("issuer users delete, users show and apple revocations, end to end (reference: Admin CLI, §3.8)")
struct UsersDeleteCommandTests {
    @Test("show tells forwarding and the held Apple token (never the token); delete needs --yes off a terminal, deletes, queues the revocation, is safe to re-run")
    func deleteByOperator() async throws {
        try await MigratedDatabase.with { database, pool in
            let directory = FileManager.default.temporaryDirectory
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let identity = ExternalIdentity(provider: "apple", subject: "001.support", audience: "com.example.app", email: "asks@example.com", emailVerified: true)
            let signIn = try await store.signIn(SignInRequest(identity: identity, clientID: "clanboards-mobile", scopes: ["openid"]))
            let kept = try await store.signIn(SignInRequest(
                identity: ExternalIdentity(provider: "apple", subject: "001.stays", audience: "com.example.app"), clientID: "clanboards-mobile", scopes: ["openid"]))
            let sub = signIn.user.subject
            // The Apple token as the server would have stored it: sealed under the database's secret.
            let secret = try await ServerSecret.load(configured: nil, store: ServerSecretStore(pool: pool))
            let appleToken = "r0123456789abcdef.0.abcd.SECRETAPPLETOKEN"
            try await pool.query(
                "INSERT INTO apple_tokens (user_id, client_id, sealed, created_at) VALUES ($1, 'com.example.app', $2, now())",
                [signIn.user.id, try AppleTokenVault(secret: secret).seal(appleToken, kind: .refreshToken, userID: signIn.user.id)])

            let show = try await IssuerCommand.run(["users", "show", sub, "--database-url", database], in: directory)
            #expect(show.code == 0, "\(show.output)")
            #expect(show.output.contains("email forwarding - (Apple never said)"))
            #expect(show.output.contains("apple token    held: com.example.app"))
            #expect(!show.output.contains(appleToken))

            let refused = try await IssuerCommand.run(["users", "delete", sub, "--database-url", database], in: directory)
            #expect(refused.code == 2, "asked for --yes off a terminal: a usage error")
            #expect(refused.output.contains("without --yes"))
            #expect(try await pool.query("SELECT count(*) AS count FROM users WHERE id = $1", [signIn.user.id]).single!.decode(Int.self, column: "count") == 1)

            let deleted = try await IssuerCommand.run(["users", "delete", sub, "--yes", "--database-url", database], in: directory)
            #expect(deleted.code == 0, "\(deleted.output)")
            #expect(deleted.output.contains("Deleted user \(sub)"))
            #expect(deleted.output.contains("1 queued"), "no Apple credentials here: the servers retry it")
            #expect(try await pool.query("SELECT count(*) AS count FROM users WHERE id = $1", [signIn.user.id]).single!.decode(Int.self, column: "count") == 0)
            #expect(try await pool.query("SELECT count(*) AS count FROM identities WHERE subject = '001.support'").single!.decode(Int.self, column: "count") == 0)
            #expect(try await pool.query("SELECT count(*) AS count FROM sessions WHERE user_id = $1", [kept.user.id]).single!.decode(Int.self, column: "count") == 1)
            let reason = try await pool.query("SELECT reason FROM account_deletions WHERE user_id = $1", [signIn.user.id]).single?.decode(String.self, column: "reason")
            #expect(reason == "operator request")

            let again = try await IssuerCommand.run(["users", "delete", sub, "--yes", "--database-url", database], in: directory)
            #expect(again.code == 0, "safe to re-run: \(again.output)")
            #expect(again.output.contains("already deleted"))

            let queue = try await IssuerCommand.run(["apple", "revocations", "--database-url", database], in: directory)
            #expect(queue.code == 0, "\(queue.output)")
            #expect(queue.output.contains(sub))
            #expect(queue.output.contains("pending"))
            #expect(!queue.output.contains(appleToken))

            let queued = try await IssuerInvocation.run(["apple", "revocations", "--output", "json"], in: directory, environment: ["ISSUER_DATABASE_URL": database])
            #expect(queued.code == 0, "\(queued.stderr)")
            let revocations = try #require(try queued.json()["revocations"] as? [[String: Any]])
            #expect(revocations.count == 1)
            let revocation = try #require(revocations.first)
            #expect(Set(revocation.keys) == ["id", "sub", "client_id", "queued_at", "attempts", "state", "next_attempt_at", "finished_at", "outcome", "last_error"])
            #expect(revocation["sub"] as? String == sub)
            #expect(revocation["client_id"] as? String == "com.example.app")
            #expect(revocation["state"] as? String == "pending")
            #expect(revocation["finished_at"] is NSNull)
            #expect(!queued.stdout.contains(appleToken))

            let nobody = try await IssuerCommand.run(["users", "delete", UUID().uuidString, "--yes", "--database-url", database], in: directory)
            #expect(nobody.code == 3, "no such user: \(nobody.output)")
        }
    }
}
