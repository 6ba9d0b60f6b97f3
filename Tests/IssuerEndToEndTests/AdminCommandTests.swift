import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

@Suite("issuer sessions and users, end to end")
struct AdminCommandTests {
    @Test("list, show, revoke one session, revoke all; safe to re-run; bad input exits 2 and an unknown user 3, with one line")
    func adminCommands() async throws {
        try await MigratedDatabase.with { database, pool in
            let directory = FileManager.default.temporaryDirectory
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let identity = ExternalIdentity(provider: "apple", subject: "001.admin", audience: "com.example.app", email: "ops@example.com", emailVerified: true)
            let first = try await store.signIn(SignInRequest(identity: identity, givenName: "Ada", clientID: "clanboards-mobile", scopes: ["openid"], userAgent: "App/1", clientIP: "198.51.100.7"))
            let second = try await store.signIn(SignInRequest(identity: identity, clientID: "clanboards-mobile", scopes: ["openid"]))
            let sub = first.user.subject
            let sid = first.sessionID.uuidString.lowercased()

            let list = try await IssuerCommand.run(["sessions", "list", "--user", sub, "--database-url", database], in: directory)
            #expect(list.code == 0, "\(list.output)")
            #expect(list.output.contains(sid))
            #expect(list.output.contains(second.sessionID.uuidString.lowercased()))
            #expect(list.output.contains("198.51.100.7"))
            #expect(list.output.contains("active"))

            let show = try await IssuerCommand.run(["users", "show", sub, "--database-url", database], in: directory)
            #expect(show.code == 0)
            #expect(show.output.contains("ops@example.com"))
            #expect(show.output.contains("apple  001.admin"))
            #expect(show.output.contains("Sessions (2)"))

            for _ in 0..<2 {
                let revoke = try await IssuerCommand.run(["sessions", "revoke", "--session", sid, "--database-url", database], in: directory)
                #expect(revoke.code == 0, "safe to re-run: \(revoke.output)")
            }
            let revoked = try await pool.query("SELECT revoked_reason FROM sessions WHERE id = $1", [first.sessionID]).single?.decodeIfPresent(String.self, column: "revoked_reason")
            #expect(revoked == "revoked by operator")
            let stillLive = try await pool.query("SELECT revoked_at IS NULL AS live FROM sessions WHERE id = $1", [second.sessionID]).single?.decode(Bool.self, column: "live")
            #expect(stillLive == true)

            let all = try await IssuerCommand.run(["sessions", "revoke", "--user", sub, "--database-url", database], in: directory)
            #expect(all.output.contains("Revoked 1 session"))
            #expect(try await pool.query("SELECT count(*) AS count FROM sessions WHERE revoked_at IS NULL").single!.decode(Int.self, column: "count") == 0)

            let bad = try await IssuerCommand.run(["users", "show", "not-a-uuid", "--database-url", database], in: directory)
            #expect(bad.code == 2, "a malformed argument is a usage error: \(bad.output)")
            #expect(bad.output.split(separator: "\n").count == 1)
            let missing = try await IssuerCommand.run(["users", "show", UUID().uuidString, "--database-url", database], in: directory)
            #expect(missing.code == 3, "not found: \(missing.output)")
            #expect(missing.output.contains("no user"))
            let noSessions = try await IssuerCommand.run(["sessions", "list", "--user", UUID().uuidString, "--database-url", database], in: directory)
            #expect(noSessions.code == 3, "sessions of a user that does not exist: \(noSessions.output)")
            let both = try await IssuerCommand.run(["sessions", "revoke", "--user", sub, "--session", sid], in: directory)
            #expect(both.code == 2, "the parser's usage errors exit 2: \(both.output)")
            #expect(both.output.contains("exactly one"))
        }
    }

    @Test("users show --output json: apple is null for a user Apple never signed in, an object for one it did")
    func appleSideOnlyForAppleUsers() async throws {
        try await MigratedDatabase.with { database, pool in
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            for (provider, hasAppleSide) in [("google", false), ("apple", true)] {
                let identity = ExternalIdentity(provider: provider, subject: "\(provider).only", audience: "aud")
                let signIn = try await store.signIn(SignInRequest(identity: identity, clientID: "clanboards-mobile", scopes: ["openid"]))
                let show = try await IssuerInvocation.run(
                    ["users", "show", signIn.user.subject, "--output", "json"], in: FileManager.default.temporaryDirectory,
                    environment: ["ISSUER_DATABASE_URL": database])
                #expect(show.code == 0, "\(show.stderr)")
                let document = try show.json()
                #expect((document["apple"] is NSNull) == !hasAppleSide, "\(provider): \(show.stdout)")
                #expect((document["apple"] as? [String: Any] != nil) == hasAppleSide, "\(provider): \(show.stdout)")
            }
        }
    }

    @Test("a hosted sign-in whose code was never redeemed is no signed-in device: users show and sessions list call it incomplete, not active")
    func unredeemedHostedSignIn() async throws {
        try await MigratedDatabase.with { database, pool in
            let directory = FileManager.default.temporaryDirectory
            let environment = ["ISSUER_DATABASE_URL": database]
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let identity = ExternalIdentity(provider: "apple", subject: "001.hosted", audience: "com.example.web", email: "hosted@example.com", emailVerified: true)
            let native = try await store.signIn(SignInRequest(identity: identity, clientID: "clanboards-mobile", scopes: ["openid"]))
            let hosted = try await store.signIn(
                SignInRequest(identity: identity, clientID: "clanboards-mobile", scopes: ["openid"]),
                authorization: AuthorizationRequest(
                    clientID: "clanboards-mobile", redirectURI: "clanboards://oauthredirect", scopes: ["openid"], state: "s",
                    codeChallenge: PKCE.challenge(forVerifier: String(repeating: "v", count: 50)), nonce: nil),
                codeLifetime: .seconds(60), stateHash: Array(repeating: 9, count: 32), stateExpiresAt: Date().addingTimeInterval(600)).signIn
            let sub = native.user.subject
            #expect(hosted.user.subject == sub)

            for command in [["users", "show", sub], ["sessions", "list", "--user", sub]] {
                let result = try await IssuerInvocation.run(command + ["--output", "json"], in: directory, environment: environment)
                #expect(result.code == 0, "\(result.stderr)")
                let sessions = try #require(try result.json()["sessions"] as? [[String: Any]])
                let states = Dictionary(uniqueKeysWithValues: sessions.compactMap { session in
                    (session["sid"] as? String).map { ($0, session["state"] as? String ?? "?") }
                })
                #expect(states == [native.sessionID.uuidString.lowercased(): "active", hosted.sessionID.uuidString.lowercased(): "incomplete"],
                        "\(command)")
            }
            let text = try await IssuerInvocation.run(["users", "show", sub], in: directory, environment: environment)
            let line = text.stdout.split(separator: "\n").first { $0.contains(hosted.sessionID.uuidString.lowercased()) }
            #expect(line?.contains("incomplete") == true, "\(text.stdout)")
        }
    }

    @Test("sessions list and users show --output json: one document with every documented member, null when unset")
    func json() async throws {
        try await MigratedDatabase.with { database, pool in
            let directory = FileManager.default.temporaryDirectory
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let identity = ExternalIdentity(provider: "apple", subject: "001.json", audience: "com.example.app", email: "json@example.com", emailVerified: true)
            let first = try await store.signIn(SignInRequest(identity: identity, givenName: "Ada", clientID: "clanboards-mobile", scopes: ["openid"], userAgent: "App/1\u{1b}[31m", clientIP: "198.51.100.7"))
            let second = try await store.signIn(SignInRequest(identity: identity, clientID: "clanboards-mobile", scopes: ["openid"]))
            _ = try await SessionRevocationStore(pool: pool).revoke(sessionID: second.sessionID, reason: "test", at: Date())
            let sub = first.user.subject

            let list = try await IssuerInvocation.run(["sessions", "list", "--user", sub, "--output", "json"], in: directory, environment: ["ISSUER_DATABASE_URL": database])
            #expect(list.code == 0, "\(list.stderr)")
            let listed = try list.json()
            #expect(listed["sub"] as? String == sub)
            let sessions = try #require(listed["sessions"] as? [[String: Any]])
            #expect(sessions.count == 2)
            let live = try #require(sessions.first { $0["sid"] as? String == first.sessionID.uuidString.lowercased() })
            #expect(Set(live.keys) == ["sid", "client_id", "scope", "auth_time", "last_used_at", "expires_at", "rotations", "state", "revoked_at", "revoked_reason", "client_ip", "user_agent"])
            #expect(live["state"] as? String == "active")
            #expect(live["client_ip"] as? String == "198.51.100.7")
            #expect(live["user_agent"] as? String == "App/1\u{1b}[31m", "JSON carries the value; its encoding escapes the control character")
            #expect(!list.stdout.contains("\u{1b}"))
            #expect(live["revoked_at"] is NSNull)
            #expect(live["rotations"] as? Int == 0)
            #expect((live["expires_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) } != nil)
            let revoked = try #require(sessions.first { $0["sid"] as? String == second.sessionID.uuidString.lowercased() })
            #expect(revoked["state"] as? String == "revoked")
            #expect(revoked["revoked_reason"] as? String == "test")

            let show = try await IssuerInvocation.run(["users", "show", sub, "--output", "json"], in: directory, environment: ["ISSUER_DATABASE_URL": database])
            #expect(show.code == 0, "\(show.stderr)")
            let user = try show.json()
            #expect(Set(user.keys) == ["sub", "created_at", "name", "email", "email_verified", "private_email", "apple", "identities", "sessions"])
            #expect(user["sub"] as? String == sub)
            #expect(user["email"] as? String == "json@example.com")
            #expect(user["email_verified"] as? Bool == true)
            #expect(user["name"] as? String == "Ada")
            let identities = try #require(user["identities"] as? [[String: Any]])
            #expect(identities.count == 1)
            #expect(identities.first?["provider"] as? String == "apple")
            #expect(identities.first?["subject"] as? String == "001.json")
            #expect(Set(identities.first.map { Array($0.keys) } ?? []) == [
                "provider", "subject", "last_sign_in_at", "disabled_at", "disabled_reason", "sign_in_refused", "credential_change_required_at",
                "transfer", "transfer_target", "rekeyed_at",
            ])
            #expect(identities.first?["disabled_at"] is NSNull && identities.first?["sign_in_refused"] as? Bool == false)
            #expect((user["sessions"] as? [Any])?.count == 2)

            let missing = try await IssuerInvocation.run(["users", "show", UUID().uuidString, "--output", "json"], in: directory, environment: ["ISSUER_DATABASE_URL": database])
            #expect(missing.code == 3)
            #expect(missing.stdout.isEmpty, "nothing on stdout when there is nothing to show")
            #expect(missing.stderr.contains("no user"))
        }
    }

    @Test("users find: by an identity's e-mail (any case) or by a provider's subject; nothing found is exit 3; both or neither is a usage error")
    func find() async throws {
        try await MigratedDatabase.with { database, pool in
            let directory = FileManager.default.temporaryDirectory
            let environment = ["ISSUER_DATABASE_URL": database]
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let apple = try await store.signIn(SignInRequest(
                identity: ExternalIdentity(provider: "apple", subject: "001.find", audience: "a", email: "Find.Me@example.com", emailVerified: true),
                clientID: "clanboards-mobile", scopes: ["openid"]))
            _ = try await store.signIn(SignInRequest(
                identity: ExternalIdentity(provider: "google", subject: "g-other", audience: "w", email: "other@example.com", emailVerified: true),
                clientID: "clanboards-mobile", scopes: ["openid"]))

            let byEmail = try await IssuerInvocation.run(["users", "find", "--email", "find.me@EXAMPLE.com", "--output", "json"], in: directory, environment: environment)
            #expect(byEmail.code == 0, "\(byEmail.stderr)")
            let users = try #require(try byEmail.json()["users"] as? [[String: Any]])
            #expect(users.map { $0["sub"] as? String } == [apple.user.subject])
            #expect(((users.first?["identities"] as? [[String: Any]])?.first?["subject"]) as? String == "001.find")

            let bySubject = try await IssuerInvocation.run(["users", "find", "--provider", "google", "--subject", "g-other"], in: directory, environment: environment)
            #expect(bySubject.code == 0 && bySubject.stdout.contains("google g-other") && !bySubject.stdout.contains(apple.user.subject))

            let none = try await IssuerInvocation.run(["users", "find", "--email", "nobody@example.com"], in: directory, environment: environment)
            #expect(none.code == 3)
            let both = try await IssuerInvocation.run(["users", "find", "--email", "a@b.c", "--provider", "apple", "--subject", "x"], in: directory, environment: environment)
            #expect(both.code == 2)
        }
    }

    @Test("apple transfer status counts Apple identities by stage; export without Apple credentials is a configuration error (exit 2)")
    func appleTransferCommands() async throws {
        try await MigratedDatabase.with { database, pool in
            let directory = FileManager.default.temporaryDirectory
            let environment = ["ISSUER_DATABASE_URL": database]
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            for sub in ["001.t1", "001.t2"] {
                _ = try await store.signIn(SignInRequest(
                    identity: ExternalIdentity(provider: "apple", subject: sub, audience: "com.example.app"), clientID: "clanboards-mobile", scopes: ["openid"]))
            }
            try await pool.query("UPDATE identities SET transfer_sub = 't.1' WHERE subject = '001.t1'")
            let status = try await IssuerInvocation.run(["apple", "transfer", "status", "--output", "json"], in: directory, environment: environment)
            #expect(status.code == 0, "\(status.stderr)")
            let counts = try status.json()
            #expect(counts["not_exported"] as? Int == 1 && counts["exported"] as? Int == 1 && counts["rekeyed"] as? Int == 0)
            try await pool.query("UPDATE identities SET transfer_target = 'NEWTEAM123' WHERE subject = '001.t1'")
            let exportedUser = try #require(try await pool.query("SELECT user_id FROM identities WHERE subject = '001.t1'").single?.decode(UUID.self, column: "user_id"))
            let show = try await IssuerInvocation.run(["users", "show", exportedUser.uuidString, "--output", "json"], in: directory, environment: environment)
            let identity = try #require((try show.json()["identities"] as? [[String: Any]])?.first)
            #expect(identity["transfer"] as? String == "exported" && identity["transfer_target"] as? String == "NEWTEAM123")
            let text = try await IssuerInvocation.run(["users", "show", exportedUser.uuidString], in: directory, environment: environment)
            #expect(text.stdout.contains("Apple team transfer: exported (to team NEWTEAM123)"), "\(text.stdout)")
            let export = try await IssuerInvocation.run(["apple", "transfer", "export", "--target", "NEWTEAM123"], in: directory, environment: environment)
            #expect(export.code == 2 && export.stderr.contains("ISSUER_APPLE_TEAM_ID"), "\(export.stderr)")
            let badTarget = try await IssuerInvocation.run(["apple", "transfer", "export", "--target", "not a team"], in: directory, environment: environment)
            #expect(badTarget.code == 2)
        }
    }
}
