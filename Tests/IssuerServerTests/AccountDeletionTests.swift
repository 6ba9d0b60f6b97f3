import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import IssuerStorage
@testable import IssuerServer
import Logging
import Postgres
import Testing
import TestSupport

@Suite("DELETE /account and the Apple revocation queue (reference: Account deletion)", .timeLimit(.minutes(10)))
struct AccountDeletionTests {
    @Test("deletion: 204; the token stops working, refresh fails, Apple's token is revoked, other users untouched, nothing personal left, a new sign-in is a new user")
    func deletes() async throws {
        try await AppleTestRig.run { rig in
            let (code, appleToken) = rig.apple.issueCode(subject: "delete.me")
            let (otherCode, otherAppleToken) = rig.apple.issueCode(subject: "keep.me")
            try await AppleTestRig.test(rig.fixture) { client in
                let tokens = try await AppleTestRig.signIn(client, rig.fixture, subject: "delete.me", code: code, email: "gone@privaterelay.appleid.com")
                let other = try await AppleTestRig.signIn(client, rig.fixture, subject: "keep.me", code: otherCode)
                let userID = try AppleTestRig.userID(rig.fixture, tokens)
                let access = tokens["access_token"] as! String

                let response = try await AccountDeletionRequest.delete(client, session: tokens)
                #expect(response.status == .noContent)
                #expect(rig.apple.revokedTokens == [appleToken])

                #expect(try await UserInfoRequest.send(client, access).status == .unauthorized)
                #expect(try await RefreshRequest.post(client, tokens["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
                let again = try await AccountDeletionRequest.delete(client, session: tokens)
                #expect(again.status == .badRequest, "the session's refresh token went with the account")
                #expect(again.json["error"] as? String == "invalid_grant")

                // The other user is untouched, Apple token included.
                #expect(try await UserInfoRequest.send(client, other["access_token"] as? String).status == .ok)
                #expect(try await RefreshRequest.post(client, other["refresh_token"] as! String).status == .ok)
                #expect(try await AppleTestRig.heldToken(rig.fixture, userID: try AppleTestRig.userID(rig.fixture, other)) == otherAppleToken)

                let audit = try #require(try await rig.fixture.pool.query(
                    "SELECT reason, row_to_json(a)::text AS json FROM account_deletions a WHERE user_id = $1", [userID]).single)
                #expect(try audit.decode(String.self, column: "reason") == "user request")
                let dump = try await AppleTestRig.dump(rig.fixture.pool)
                for personal in ["gone@privaterelay.appleid.com", "delete.me", appleToken] {
                    for encoding in AppleTestRig.encodings(personal) {
                        #expect(!dump.contains(encoding), "something personal survived the deletion")
                    }
                }
                #expect(try audit.decode(String.self, column: "json").contains(userID.uuidString.lowercased()))

                let again2 = try await AppleTestRig.signIn(client, rig.fixture, subject: "delete.me", code: nil)
                #expect(try AppleTestRig.userID(rig.fixture, again2) != userID, "a new sign-in is a new user with a new sub")
            }
            #expect(MetricsExposition.value(rig.fixture.metrics, #"issuer_accounts_deletions_total{reason="user request"}"#) == 1)
            #expect(MetricsExposition.value(rig.fixture.metrics, #"issuer_apple_revocations_total{outcome="revoked"}"#) == 1)
        }
    }

    @Test("no credentials: a bare Bearer challenge; a bad token: invalid_token; nothing is deleted")
    func challenges() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture)
                let none = try await AccountDeletionRequest.delete(client, nil, refreshToken: tokens["refresh_token"] as? String)
                #expect(none.status == .unauthorized)
                #expect(none.headers[.wwwAuthenticate] == "Bearer")
                for token in ["garbage", tokens["id_token"] as! String, tokens["refresh_token"] as! String] {
                    let bad = try await AccountDeletionRequest.delete(client, token, refreshToken: tokens["refresh_token"] as? String)
                    #expect(bad.status == .unauthorized)
                    #expect(bad.json["error"] as? String == "invalid_token")
                }
                // A body problem is judged only after the bearer: a bad bearer is 401 whatever the body.
                let badBody = try await client.executeRequest(
                    uri: "/account", method: .delete, headers: [.authorization: "Bearer garbage", .contentType: "text/plain"],
                    body: ByteBuffer(string: "refresh_token=x"))
                #expect(badBody.status == .unauthorized)
                let revoked = try await RevocationRequest.post(client, tokens["refresh_token"] as? String)
                #expect(revoked.status == .ok)
                let afterRevocation = try await AccountDeletionRequest.delete(client, session: tokens)
                #expect(afterRevocation.status == .badRequest, "a revoked session's tokens delete nothing")
                #expect(afterRevocation.json["error"] as? String == "invalid_grant")
            }
            #expect(try await fixture.count("users") == 1)
            #expect(try await fixture.count("account_deletions") == 0)
        }
    }

    @Test("Two proofs: an access token alone (a hosted-flow token for web included) deletes nothing: 400 invalid_request", arguments: [false, true])
    func accessTokenAlone(hosted: Bool) async throws {
        try await HostedFlow.withFixture { fixture in
            try await fixture.test { client in
                let tokens = hosted
                    ? try await HostedFlow.signIn(client, fixture, clientID: "clanboards-mobile", scope: "openid")
                    : try await NativeSignIn.tokens(client, fixture)
                let answer = try await AccountDeletionRequest.delete(client, tokens["access_token"] as? String, refreshToken: nil)
                #expect(answer.status == .badRequest)
                #expect(answer.json["error"] as? String == "invalid_request")
                let empty = try await AccountDeletionRequest.delete(client, tokens["access_token"] as? String, refreshToken: "")
                #expect(empty.json["error"] as? String == "invalid_request")
                #expect(try await UserInfoRequest.send(client, tokens["access_token"] as? String).status == .ok)
            }
            #expect(try await fixture.count("users") == 1)
            #expect(try await fixture.count("account_deletions") == 0)
        }
    }

    @Test("Two proofs: the refresh token must be this session's: another session of the user, another user's, unknown or malformed: 400 invalid_grant, nothing deleted or revoked")
    func refreshTokenOfAnotherSession() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture, subject: "proof.one")
                let sameUser = try await NativeSignIn.tokens(client, fixture, subject: "proof.one")
                let otherUser = try await NativeSignIn.tokens(client, fixture, subject: "proof.two")
                let access = tokens["access_token"] as? String
                for refresh in [sameUser["refresh_token"] as? String, otherUser["refresh_token"] as? String, RefreshToken.generate().value, "short"] {
                    let answer = try await AccountDeletionRequest.delete(client, access, refreshToken: refresh)
                    #expect(answer.status == .badRequest)
                    #expect(answer.json["error"] as? String == "invalid_grant")
                }
                for session in [tokens, sameUser, otherUser] {
                    #expect(try await UserInfoRequest.send(client, session["access_token"] as? String).status == .ok)
                }
            }
            #expect(try await fixture.count("users") == 2)
            #expect(try await fixture.count("sessions WHERE revoked_at IS NOT NULL") == 0)
            #expect(try await fixture.count("account_deletions") == 0)
        }
    }

    @Test("Two proofs, checked as the refresh grant checks: a spent token inside the reuse grace is accepted (not rotated), after it is theft: session revoked, nothing deleted", arguments: AccountDeletionRequest.Body.allCases)
    func spentRefreshToken(body: AccountDeletionRequest.Body) async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let first = try await NativeSignIn.tokens(client, fixture, subject: "proof.spent")
                let rotated = try await RefreshRequest.post(client, first["refresh_token"] as! String).json
                let access = rotated["access_token"] as? String
                // After the grace: theft.
                fixture.clock.advance(by: 60)
                let late = try await AccountDeletionRequest.delete(client, access, refreshToken: first["refresh_token"] as? String, body: body)
                #expect(late.status == .badRequest)
                #expect(late.json["error"] as? String == "invalid_grant")
                #expect(try await UserInfoRequest.send(client, access).status == .unauthorized, "the session is revoked")

                let second = try await NativeSignIn.tokens(client, fixture, subject: "proof.spent")
                let next = try await RefreshRequest.post(client, second["refresh_token"] as! String).json
                // Inside the grace: the spent token still proves the session (a lost answer's retry).
                let inGrace = try await AccountDeletionRequest.delete(client, next["access_token"] as? String, refreshToken: second["refresh_token"] as? String, body: body)
                #expect(inGrace.status == .noContent)
            }
            #expect(try await fixture.count("account_deletions") == 1)
            #expect(try await fixture.count("users") == 0)
        }
    }

    @Test("Two proofs: the current refresh token is not rotated by a refused deletion; it still refreshes")
    func notRotated() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture)
                let refused = try await AccountDeletionRequest.delete(client, "garbage", refreshToken: tokens["refresh_token"] as? String)
                #expect(refused.status == .unauthorized)
                #expect(try await RefreshRequest.post(client, tokens["refresh_token"] as! String).status == .ok)
            }
            #expect(try await fixture.count("refresh_tokens WHERE spent_at IS NOT NULL") == 1)
        }
    }

    @Test("Apple hanging: 204 without waiting on Apple; the revocation arrives after Apple is back, sent by another process")
    func appleDown() async throws {
        try await AppleTestRig.run { rig in
            let (code, appleToken) = rig.apple.issueCode(subject: "delete.later")
            try await AppleTestRig.test(rig.fixture) { client in
                let tokens = try await AppleTestRig.signIn(client, rig.fixture, subject: "delete.later", code: code)
                rig.apple.mode = .hanging
                let started = ContinuousClock.now
                let (access, refresh) = (tokens["access_token"] as? String, tokens["refresh_token"] as? String)
                let answer = await WithinBound.result(seconds: 45) { try await AccountDeletionRequest.delete(client, access, refreshToken: refresh).status }
                #expect(try answer?.get() == .noContent)
                // docs/reference.md, "Account deletion": about 2 s. Bounded generously for a loaded machine: what matters is that
                // the answer did not wait out Apple's 60 s hang.
                #expect(ContinuousClock.now - started < .seconds(30))
                #expect(try await AppleTestRig.eventually {
                    MetricsExposition.value(rig.fixture.metrics, "issuer_apple_revocation_queue_depth") == 1
                })
            }
            #expect(rig.apple.revokedTokens.isEmpty)
            #expect(try await rig.fixture.count("apple_revocations WHERE finished_at IS NULL") == 1)

            // This process is gone; another one, sharing the database, picks the row up once it is due.
            rig.apple.mode = .up
            try await rig.fixture.withSharing { second in
                try await AppleTestRig.test(second) { _ throws in
                    rig.fixture.clock.advance(by: AppleRevocationQueue.backoff(afterAttempts: 1) + 1)
                    #expect(try await AppleTestRig.eventually { rig.apple.revokedTokens == [appleToken] })
                    #expect(try await AppleTestRig.eventually {
                        try await second.count("apple_revocations WHERE outcome = 'revoked' AND sealed IS NULL") == 1
                    })
                    #expect(try await AppleTestRig.eventually { MetricsExposition.value(second.metrics, "issuer_apple_revocation_queue_depth") == 0 })
                }
                #expect(MetricsExposition.value(second.metrics, #"issuer_apple_revocations_total{outcome="revoked"}"#) == 1)
                #expect(MetricsExposition.value(rig.fixture.metrics, #"issuer_apple_revocations_total{outcome="revoked"}"#) == nil)
            }
        }
    }

    @Test("Apple answering that the token is already invalid ends the retries")
    func alreadyInvalid() async throws {
        try await AppleTestRig.run { rig in
            let (code, appleToken) = rig.apple.issueCode(subject: "delete.dead")
            try await AppleTestRig.test(rig.fixture) { client in
                let tokens = try await AppleTestRig.signIn(client, rig.fixture, subject: "delete.dead", code: code)
                _ = rig.apple.state.withLock { $0.liveTokens.remove(appleToken) }
                #expect(try await AccountDeletionRequest.delete(client, session: tokens).status == .noContent)
                #expect(try await rig.fixture.count("apple_revocations WHERE outcome = 'already_invalid' AND sealed IS NULL") == 1)
                rig.fixture.clock.advance(by: 3 * 24 * 3600)
                // Days later, past any backoff: a worker pass finds nothing to send.
                let dependencies = rig.fixture.dependencies
                let queue = AppleRevocationQueue(
                    store: AppleRevocationStore(pool: dependencies.pool), vault: AppleTokenVault(secret: AppleTestRig.secret),
                    api: IssuerServices.appleAPI(dependencies), clock: rig.fixture.clock, events: UncountedAccountEvents())
                #expect(try await queue.retryDue(logger: Logger(label: "test")) == 0)
                await dependencies.pool.close()
            }
            #expect(rig.apple.state.withLock { $0.revokeRequests } == [appleToken], "tried once, never again")
            #expect(MetricsExposition.value(rig.fixture.metrics, #"issuer_apple_revocations_total{outcome="already_invalid"}"#) == 1)
        }
    }

    @Test("two processes working the queue at once never send the same revocation twice")
    func twoWorkers() async throws {
        try await AppleTestRig.run { rig in
            let vault = AppleTokenVault(secret: AppleTestRig.secret)
            var tokens: [String] = []
            for _ in 0..<12 {
                let (code, _) = rig.apple.issueCode(subject: "queued")
                let token = try #require(rig.apple.state.withLock { $0.codes.removeValue(forKey: code) })
                _ = rig.apple.state.withLock { $0.liveTokens.insert(token) }
                tokens.append(token)
                let userID = UUID()
                try await rig.fixture.pool.query("""
                    INSERT INTO apple_revocations (id, user_id, client_id, sealed, created_at, next_attempt_at)
                    VALUES (gen_random_uuid(), $1, 'com.example.app', $2, $3, $3)
                    """, [userID, try vault.seal(token, kind: .refreshToken, userID: userID), rig.fixture.clock.now])
            }
            rig.apple.state.withLock { $0.revokeDelay = .milliseconds(200) }
            try await rig.fixture.withSharing { second throws in
                let queues = [rig.fixture, second].map { fixture in
                    var dependencies = fixture.dependencies
                    dependencies.appleWorkerInterval = .seconds(3600)
                    return AppleRevocationQueue(
                        store: AppleRevocationStore(pool: dependencies.pool), vault: vault, api: IssuerServices.appleAPI(dependencies), clock: fixture.clock,
                        events: UncountedAccountEvents())
                }
                await withTaskGroup(of: Void.self) { group in
                    for queue in queues {
                        for _ in 0..<3 {
                            group.addTask { _ = try? await queue.retryDue(logger: Logger(label: "test")) }
                        }
                    }
                }
                let state = rig.apple.state.withLock { $0 }
                #expect(state.maxConcurrentPerToken == 1)
                #expect(state.revokeRequests.sorted() == tokens.sorted(), "each sent exactly once")
                #expect(try await rig.fixture.count("apple_revocations WHERE outcome = 'revoked'") == 12)
            }
        }
    }

    @Test("finished revocations and old received event jtis (Apple's and Google's) are forgotten after their retention; pending revocations never")
    func pruning() async throws {
        try await withIssuer { fixture in
            let now = fixture.clock.now
            let old = now.addingTimeInterval(-AppleRevocationQueue.finishedRetention.timeInterval - 60)
            try await fixture.pool.query("""
                INSERT INTO apple_revocations (id, user_id, client_id, sealed, created_at, next_attempt_at, finished_at, outcome) VALUES
                    (gen_random_uuid(), gen_random_uuid(), 'old.finished', NULL, $1, $1, $1, 'revoked'),
                    (gen_random_uuid(), gen_random_uuid(), 'recent.finished', NULL, $2, $2, $2, 'revoked'),
                    (gen_random_uuid(), gen_random_uuid(), 'old.pending', '\\x00', $1, $1, NULL, NULL)
                """, [old, now])
            try await fixture.pool.query("""
                INSERT INTO received_events (sender, jti, event_type, received_at) VALUES
                    ('apple', 'old', 'email-enabled', $1), ('apple', 'new', 'email-enabled', $2), ('google', 'old', 'verification', $1)
                """, [now.addingTimeInterval(-ReceivedEventStore.retention.timeInterval - 60), now])
            try await AppleRevocationQueue(
                store: AppleRevocationStore(pool: fixture.pool), vault: AppleTokenVault(secret: AppleTestRig.secret), api: nil,
                clock: fixture.clock, events: UncountedAccountEvents()
            ).prune()
            try await ReceivedEventStore(pool: fixture.pool).prune(now: now)
            let kept = try await fixture.pool.query("SELECT client_id FROM apple_revocations ORDER BY client_id").rows.map { try $0.decode(String.self, column: "client_id") }
            #expect(kept == ["old.pending", "recent.finished"])
            #expect(try await fixture.pool.query("SELECT jti FROM received_events").rows.map { try $0.decode(String.self, column: "jti") } == ["new"])
        }
    }
}
