import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import Synchronization
import Testing
import TestSupport

@Suite("Refresh rotation, retries and theft detection (reference: Refresh tokens and sessions)")
struct RefreshGrantTests {
    @Test("every use rotates; the lineage is recorded; the answer carries fresh tokens")
    func rotation() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let first = try await NativeSignIn.tokens(client, fixture)
                let r0 = first["refresh_token"] as! String
                let one = try await RefreshRequest.post(client, r0)
                #expect(one.status == .ok)
                #expect(one.headers[.cacheControl] == "no-store")
                let r1 = try #require(one.json["refresh_token"] as? String)
                #expect(r1 != r0)
                #expect(one.json["id_token"] is String, "openid in scope: an ID token too")
                #expect(one.json["access_token"] as? String != first["access_token"] as? String)
                let two = try await RefreshRequest.post(client, r1)
                #expect(two.status == .ok)
                let r2 = try #require(two.json["refresh_token"] as? String)
                let lineage = try await fixture.pool.query("""
                    SELECT generation, parent_hash, spent_at IS NOT NULL AS spent FROM refresh_tokens ORDER BY generation
                    """).rows
                #expect(try lineage.map { try $0.decode(Int.self, column: "generation") } == [0, 1, 2])
                #expect(try lineage[1].decode([UInt8].self, column: "parent_hash") == RefreshToken(value: r0).hash)
                #expect(try lineage[2].decode([UInt8].self, column: "parent_hash") == RefreshToken(value: r1).hash)
                #expect(try lineage.map { try $0.decode(Bool.self, column: "spent") } == [true, true, false])
                #expect(RefreshToken(value: r2).hash != RefreshToken(value: r1).hash)
            }
        }
    }

    @Test("a retry within the grace window answers the same successor, sequentially and 16 at once")
    func retryWithinGrace() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let r0 = try await NativeSignIn.tokens(client, fixture)["refresh_token"] as! String
                let first = try await RefreshRequest.post(client, r0)
                let successor = try #require(first.json["refresh_token"] as? String)
                fixture.clock.advance(by: 5)
                let retry = try await RefreshRequest.post(client, r0)
                #expect(retry.status == .ok)
                #expect(retry.json["refresh_token"] as? String == successor)
                #expect(retry.json["access_token"] as? String != first.json["access_token"] as? String, "a fresh access token")

                let raceStart = try await NativeSignIn.tokens(client, fixture, subject: "racer")["refresh_token"] as! String
                let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                    for _ in 0..<16 {
                        group.addTask {
                            let response = try await RefreshRequest.post(client, raceStart)
                            return (Int(response.status.code), response.json["refresh_token"] as? String)
                        }
                    }
                    return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
                }
                #expect(answers.allSatisfy { $0.0 == 200 })
                #expect(Set(answers.compactMap(\.1)).count == 1, "one successor, no second branch")
                #expect(answers.compactMap(\.1).count == 16)
            }
            let branches = try await fixture.pool.query("""
                SELECT count(*) FROM refresh_tokens r JOIN refresh_tokens p ON r.parent_hash = p.token_hash
                GROUP BY p.token_hash HAVING count(*) > 1
                """).rows
            #expect(branches.isEmpty)
        }
    }

    @Test("a retry handled by a second process answers the same successor")
    func retryAcrossProcesses() async throws {
        try await withIssuer { fixture in
            try await fixture.withSharing { other in
                let r0 = Mutex<String?>(nil)
                let successor = Mutex<String?>(nil)
                try await fixture.test { client in
                    let token = try await NativeSignIn.tokens(client, fixture)["refresh_token"] as! String
                    r0.withLock { $0 = token }
                    let answer = try await RefreshRequest.post(client, token).json["refresh_token"] as? String
                    successor.withLock { $0 = answer }
                }
                try await other.test { client in
                    let response = try await RefreshRequest.post(client, r0.withLock { $0 }!)
                    #expect(response.status == .ok)
                    #expect(response.json["refresh_token"] as? String == successor.withLock { $0 })
                }
            }
        }
    }

    @Test("reuse after the grace window revokes that session (every token, its access tokens) and nothing else")
    func reuseRevokesSession() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let stolen = try await NativeSignIn.tokens(client, fixture)
                let otherSession = try await NativeSignIn.tokens(client, fixture)
                let r0 = stolen["refresh_token"] as! String
                let rotated = try await RefreshRequest.post(client, r0)
                let r1 = rotated.json["refresh_token"] as! String
                let access1 = rotated.json["access_token"] as! String
                fixture.clock.advance(by: 11)

                let replay = try await RefreshRequest.post(client, r0)
                #expect(replay.status == .badRequest)
                #expect(replay.json["error"] as? String == "invalid_grant")
                #expect(try await RefreshRequest.post(client, r1).json["error"] as? String == "invalid_grant", "the legitimate successor dies too")
                let userinfo = try await client.get("/userinfo", headers: [.authorization: "Bearer \(access1)"])
                #expect(userinfo.status == .unauthorized)

                let unaffected = try await RefreshRequest.post(client, otherSession["refresh_token"] as! String)
                #expect(unaffected.status == .ok, "the same user's other session lives on")
                let metrics = try await client.get("/metrics")
                #expect(String(buffer: metrics.body).contains("issuer_refresh_reuse_detections_total 1"))
            }
            let reason = try await fixture.pool.query("SELECT revoked_reason FROM sessions WHERE revoked_at IS NOT NULL").rows
            #expect(try reason.map { try $0.decode(String.self, column: "revoked_reason") } == ["refresh token reuse"])
        }
    }

    @Test("each rotation gets a fresh TTL, capped by the session's maximum age")
    func expiryAndMaxAge() async throws {
        try await withIssuer(environment: ["ISSUER_REFRESH_TOKEN_TTL": "100", "ISSUER_SESSION_MAX_AGE": "150"]) { fixture in
            try await fixture.test { client in
                let start = fixture.clock.now.timeIntervalSince1970
                let first = try await NativeSignIn.tokens(client, fixture)
                // No token outlives its session: the access token's 15 minutes are cut to the 150 s left.
                #expect((149...150).contains(first["expires_in"] as? Int ?? 0), "\(first["expires_in"] ?? "none")")
                let r0 = first["refresh_token"] as! String
                fixture.clock.advance(by: 90)
                let rotated = try await RefreshRequest.post(client, r0).json
                #expect((59...60).contains(rotated["expires_in"] as? Int ?? 0), "\(rotated["expires_in"] ?? "none")")
                let claims = try AccessTokenVerifier(configuration: fixture.configuration, clock: fixture.clock)
                    .verify(rotated["access_token"] as! String, ring: try fixture.ring())
                #expect(abs(Double(claims.expiresAt) - (start + 150)) <= 1, "the refreshed access token ends with the session")
                let r1 = rotated["refresh_token"] as! String
                fixture.clock.advance(by: 61)
                let late = try await RefreshRequest.post(client, r1)
                #expect(late.json["error"] as? String == "invalid_grant", "past the session's max age although inside the token's TTL")

                let s0 = try await NativeSignIn.tokens(client, fixture, subject: "ttl")["refresh_token"] as! String
                fixture.clock.advance(by: 101)
                #expect(try await RefreshRequest.post(client, s0).json["error"] as? String == "invalid_grant", "expired")
            }
        }
    }

    @Test("scope may only narrow; a widening request changes nothing")
    func scopeNarrowing() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let r0 = try await NativeSignIn.tokens(client, fixture, scope: "openid email")["refresh_token"] as! String
                let wider = try await RefreshRequest.post(client, r0, scope: "openid email profile")
                #expect(wider.json["error"] as? String == "invalid_scope")
                let narrower = try await RefreshRequest.post(client, r0, scope: "openid")
                #expect(narrower.status == .ok, "the refused request did not spend the token")
                #expect(narrower.json["scope"] as? String == "openid")
                let claims = try AccessTokenVerifier(configuration: fixture.configuration, clock: fixture.clock)
                    .verify(narrower.json["access_token"] as! String, ring: try fixture.ring())
                #expect(claims.email == nil)
                let next = try await RefreshRequest.post(client, narrower.json["refresh_token"] as! String)
                #expect(next.json["scope"] as? String == "openid email", "the session keeps its scope")
            }
        }
    }

    @Test("another client's, unknown and malformed refresh tokens are invalid_grant; nothing changes")
    func refused() async throws {
        try await withIssuer(environment: ["ISSUER_CLIENTS_FILE": try IssuerTestFixture.twoClientsFile().path]) { fixture in
            try await fixture.test { client in
                let r0 = try await NativeSignIn.tokens(client, fixture)["refresh_token"] as! String
                #expect(try await RefreshRequest.post(client, r0, clientID: "other-app").json["error"] as? String == "invalid_grant")
                #expect(try await RefreshRequest.post(client, RefreshToken.generate().value).json["error"] as? String == "invalid_grant")
                #expect(try await RefreshRequest.post(client, "short").json["error"] as? String == "invalid_grant")
                #expect(try await RefreshRequest.post(client, r0, clientID: "nobody").json["error"] as? String == "invalid_client")
                #expect(try await RefreshRequest.post(client, r0).status == .ok, "the token was not spent by the refused attempts")
            }
        }
    }

    @Test("a client registered with id_token_on_refresh false gets no ID token on refresh; its sign-in still does")
    func idTokenOnRefreshOff() async throws {
        let file = TestDirectories.make("clients.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try #"[{"client_id":"clanboards-mobile","redirect_uris":["clanboards://cb"],"scopes":["openid","email"],"id_token_on_refresh":false}]"#
            .write(to: file, atomically: true, encoding: .utf8)
        try await withIssuer(environment: ["ISSUER_CLIENTS_FILE": file.path]) { fixture in
            try await fixture.test { client in
                let signIn = try await NativeSignIn.tokens(client, fixture)
                #expect(signIn["id_token"] is String, "the sign-in answers its ID token as before")
                let refreshed = try await RefreshRequest.post(client, try #require(signIn["refresh_token"] as? String))
                #expect(refreshed.status == .ok)
                #expect(refreshed.json["access_token"] is String)
                #expect(refreshed.json["refresh_token"] is String)
                #expect(refreshed.json["id_token"] == nil, "one signature per refresh: no ID token")
                #expect(refreshed.json["scope"] as? String == "openid email", "the scope is unchanged")
            }
        }
    }
}
