import Foundation
import HTTPTypes
import HummingbirdTesting
import IssuerCore
import Synchronization
import Testing
import TestSupport

/// docs/reference.md, "DPoP" at the token endpoint and the native exchange: proofs checked before
/// anything else, sessions bound to the proof's key, refreshes of a bound session only with that
/// key, and the retry within the grace kept (RFC 9449 §4.3, §5).
@Suite("DPoP at the token endpoint (reference: DPoP)")
struct DPoPTokenEndpointTests {
    private func count(_ fixture: IssuerTestFixture, _ table: String) async throws -> Int {
        try await fixture.pool.query("SELECT count(*)::int AS n FROM \(table)").rows[0].decode(column: "n")
    }

    @Test("a sign-in with a proof binds the session: token_type DPoP, cnf.jkt in the access token, the key stored")
    func signInBinds() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let key = DPoPKey()
                let answer = try await DPoPClient.signIn(client, fixture, proof: try DPoPClient.proof(key, fixture, "/auth/apple/exchange"))
                #expect(answer.status == .ok)
                #expect(answer.json["token_type"] as? String == "DPoP")
                #expect(DPoPClient.confirmedKey(answer.json["access_token"]) == key.thumbprint)
                let stored: String? = try await fixture.pool.query("SELECT dpop_jkt FROM sessions").rows[0].decodeIfPresent(column: "dpop_jkt")
                #expect(stored == key.thumbprint)

                let refreshed = try await DPoPClient.refresh(
                    client, try #require(answer.json["refresh_token"] as? String), proof: try DPoPClient.proof(key, fixture))
                #expect(refreshed.status == .ok)
                #expect(refreshed.json["token_type"] as? String == "DPoP")
                #expect(DPoPClient.confirmedKey(refreshed.json["access_token"]) == key.thumbprint)

                let unbound = try await DPoPClient.signIn(client, fixture, proof: nil, subject: "bearer.user")
                #expect(unbound.json["token_type"] as? String == "Bearer")
                #expect(DPoPClient.confirmedKey(unbound.json["access_token"]) == nil)
            }
        }
    }

    @Test("a failing proof is invalid_dpop_proof and nothing is written: no user, no session, no jti kept")
    func failingProofWritesNothing() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let key = DPoPKey()
                let wrongURL = try DPoPClient.proof(key, fixture, "/oauth2/token")
                let answer = try await DPoPClient.signIn(client, fixture, proof: wrongURL)
                #expect(answer.status == .badRequest)
                #expect(answer.json["error"] as? String == "invalid_dpop_proof")
                let stale = try key.proof(
                    url: DPoPClient.url(fixture, "/auth/apple/exchange"), issuedAt: fixture.clock.now.addingTimeInterval(-120))
                #expect(try await DPoPClient.signIn(client, fixture, proof: stale).json["error"] as? String == "invalid_dpop_proof")
                #expect(try await count(fixture, "users") == 0)
                #expect(try await count(fixture, "sessions") == 0)
                #expect(try await count(fixture, "dpop_proofs") == 0)
            }
        }
    }

    @Test("a bound refresh token without the key is refused invalid_grant, nothing spent or revoked, even when spent long ago; the owner still refreshes")
    func stolenWithoutTheKey() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let owner = DPoPKey()
                let signIn = try await DPoPClient.signIn(client, fixture, proof: try DPoPClient.proof(owner, fixture, "/auth/apple/exchange"))
                let r0 = try #require(signIn.json["refresh_token"] as? String)

                for proof in [nil, try DPoPClient.proof(DPoPKey(), fixture)] {
                    let thief = try await DPoPClient.refresh(client, r0, proof: proof)
                    #expect(thief.status == .badRequest)
                    #expect(thief.json["error"] as? String == "invalid_grant")
                    #expect(try await DPoPClient.tokenState(fixture, r0) == (spent: false, revoked: false))
                }

                let first = try await DPoPClient.refresh(client, r0, proof: try DPoPClient.proof(owner, fixture))
                let r1 = try #require(first.json["refresh_token"] as? String)
                fixture.clock.advance(by: fixture.configuration.refreshReuseGrace.timeInterval + 30)
                // A spent token after the grace is theft for an unbound session; without the key it is only refused.
                let late = try await DPoPClient.refresh(client, r0, proof: nil)
                #expect(late.json["error"] as? String == "invalid_grant")
                #expect(try await DPoPClient.tokenState(fixture, r1) == (spent: false, revoked: false))

                let next = try await DPoPClient.refresh(client, r1, proof: try DPoPClient.proof(owner, fixture))
                #expect(next.status == .ok)
                #expect(DPoPClient.confirmedKey(next.json["access_token"]) == owner.thumbprint)
            }
        }
    }

    @Test("the answer lost: a retry inside the grace with a fresh proof from the key, or the identical resend, gets the same successor")
    func lostAnswerRetry() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let key = DPoPKey()
                let signIn = try await DPoPClient.signIn(client, fixture, proof: try DPoPClient.proof(key, fixture, "/auth/apple/exchange"))
                let r0 = try #require(signIn.json["refresh_token"] as? String)
                let proof = try DPoPClient.proof(key, fixture)
                let lost = try await DPoPClient.refresh(client, r0, proof: proof)
                let successor = try #require(lost.json["refresh_token"] as? String)

                fixture.clock.advance(by: 2)
                let resend = try await DPoPClient.refresh(client, r0, proof: proof)
                #expect(resend.status == .ok)
                #expect(resend.json["refresh_token"] as? String == successor)

                fixture.clock.advance(by: 2)
                let fresh = try await DPoPClient.refresh(client, r0, proof: try DPoPClient.proof(key, fixture))
                #expect(fresh.status == .ok)
                #expect(fresh.json["refresh_token"] as? String == successor)
                #expect(DPoPClient.confirmedKey(fresh.json["access_token"]) == key.thumbprint)

                let otherKey = try await DPoPClient.refresh(client, r0, proof: try DPoPClient.proof(DPoPKey(), fixture))
                #expect(otherKey.json["error"] as? String == "invalid_grant", "the retry needs the session's key")
                #expect(try await DPoPClient.tokenState(fixture, successor) == (spent: false, revoked: false))
            }
        }
    }

    @Test("a reused jti is invalid_dpop_proof: another proof with it, a resend of a sign-in, a resend of a refresh after the grace")
    func replayedJTI() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let key = DPoPKey()
                let signInProof = try DPoPClient.proof(key, fixture, "/auth/apple/exchange", jti: "once")
                let signIn = try await DPoPClient.signIn(client, fixture, proof: signInProof)
                let r0 = try #require(signIn.json["refresh_token"] as? String)
                let again = try await DPoPClient.signIn(client, fixture, proof: signInProof, subject: "someone.else")
                #expect(again.json["error"] as? String == "invalid_dpop_proof", "a sign-in has no retry: its resend is a replay")
                #expect(try await count(fixture, "sessions") == 1)

                let reused = try await DPoPClient.refresh(client, r0, proof: try DPoPClient.proof(key, fixture, jti: "once"))
                #expect(reused.json["error"] as? String == "invalid_dpop_proof", "same key and jti, another proof")
                #expect(try await DPoPClient.tokenState(fixture, r0) == (spent: false, revoked: false))

                let proof = try DPoPClient.proof(key, fixture)
                let first = try await DPoPClient.refresh(client, r0, proof: proof)
                #expect(first.status == .ok)
                fixture.clock.advance(by: fixture.configuration.refreshReuseGrace.timeInterval + 1)
                let late = try await DPoPClient.refresh(client, r0, proof: proof)
                #expect(late.json["error"] as? String == "invalid_dpop_proof", "after the grace the resend is a replay")
                #expect(try await DPoPClient.tokenState(fixture, r0).revoked == false, "refused before the token was looked at")
            }
        }
    }

    @Test("the jti memory is shared: a second process refuses a proof the first accepted, and takes the identical resend of a refresh as the retry")
    func jtiMemoryAcrossProcesses() async throws {
        try await withIssuer { fixture in
            try await fixture.withSharing { other in
                let key = DPoPKey()
                let signInProof = try DPoPClient.proof(key, fixture, "/auth/apple/exchange")
                let refreshProof = try DPoPClient.proof(key, fixture)
                let first = Mutex<(r0: String, successor: String)?>(nil)
                try await fixture.test { client in
                    let signIn = try await DPoPClient.signIn(client, fixture, proof: signInProof)
                    let r0 = try #require(signIn.json["refresh_token"] as? String)
                    let refreshed = try await DPoPClient.refresh(client, r0, proof: refreshProof)
                    let successor = try #require(refreshed.json["refresh_token"] as? String)
                    first.withLock { $0 = (r0, successor) }
                }
                let (r0, successor) = try #require(first.withLock { $0 })
                try await other.test { client in
                    let replay = try await DPoPClient.signIn(client, other, proof: signInProof, subject: "another.user")
                    #expect(replay.json["error"] as? String == "invalid_dpop_proof")
                    let resend = try await DPoPClient.refresh(client, r0, proof: refreshProof)
                    #expect(resend.status == .ok)
                    #expect(resend.json["refresh_token"] as? String == successor)
                }
            }
        }
    }

    @Test("one proof sent by 8 sign-ins at once signs in once")
    func concurrentReplays() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let proof = try DPoPClient.proof(DPoPKey(), fixture, "/auth/apple/exchange")
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<8 {
                        group.addTask {
                            Int(try await DPoPClient.signIn(client, fixture, proof: proof, subject: "racer.\(index)").status.code)
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses.filter { $0 == 200 }.count == 1)
                #expect(statuses.filter { $0 == 400 }.count == 7)
                #expect(try await count(fixture, "sessions") == 1)
            }
        }
    }

    /// The hosted flow with `dpop_jkt` on the authorization request; answers the code.
    private func boundCode(_ client: some TestClientProtocol, _ fixture: IssuerTestFixture, jkt: String) async throws -> String {
        let authorize = try await client.get(HostedFlow.authorizeQuery(["dpop_jkt": jkt]))
        let apple = HostedFlow.query(authorize.headers[.location])
        let idToken = try fixture.apple.identityToken(
            subject: "001.hosted.\(UUID().uuidString.prefix(6))", audience: HostedFlow.servicesID,
            overrides: ["nonce": try #require(apple["nonce"])])
        let back = try await HostedFlow.callback(client, [("state", try #require(apple["state"])), ("id_token", idToken)])
        return try #require(HostedFlow.query(back.headers[.location])["code"])
    }

    private func redeem(_ client: some TestClientProtocol, code: String, proof: String?) async throws -> TestResponse {
        try await DPoPClient.postForm(client, "/oauth2/token", [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", HostedFlow.redirectURI),
            ("client_id", "clanboards-mobile"), ("code_verifier", HostedFlow.verifier),
        ], proof: proof)
    }

    @Test("dpop_jkt on the authorization request binds the code: redeemed only with a proof from that key (RFC 9449 §10)")
    func codeBoundByDPoPJKT() async throws {
        try await HostedFlow.withFixture { fixture in
            try await fixture.test { client in
                let key = DPoPKey()
                let code = try await boundCode(client, fixture, jkt: key.thumbprint)
                let answer = try await redeem(client, code: code, proof: try DPoPClient.proof(key, fixture))
                #expect(answer.status == .ok)
                #expect(answer.json["token_type"] as? String == "DPoP")
                #expect(DPoPClient.confirmedKey(answer.json["access_token"]) == key.thumbprint)

                for proof in [nil, try DPoPClient.proof(DPoPKey(), fixture)] {
                    let stolen = try await boundCode(client, fixture, jkt: key.thumbprint)
                    let refused = try await redeem(client, code: stolen, proof: proof)
                    #expect(refused.status == .badRequest)
                    #expect(refused.json["error"] as? String == "invalid_grant")
                    let later = try await redeem(client, code: stolen, proof: try DPoPClient.proof(key, fixture))
                    #expect(later.json["error"] as? String == "invalid_grant", "a misused code is spent, as for a wrong verifier")
                }

                let malformed = try await client.get(HostedFlow.authorizeQuery(["dpop_jkt": "not-a-thumbprint"]))
                #expect(HostedFlow.query(malformed.headers[.location])["error"] == "invalid_request")
            }
        }
    }

    @Test("an authorization code redeemed with a proof binds its session")
    func codeRedemptionBinds() async throws {
        try await HostedFlow.withFixture { fixture in
            try await fixture.test { client in
                let key = DPoPKey()
                let (state, idToken) = try await HostedFlow.throughApple(client, fixture)
                let callback = try await HostedFlow.callback(client, [("state", state), ("id_token", idToken)])
                let code = try #require(HostedFlow.query(callback.headers[.location])["code"])
                let redeemed = try await DPoPClient.postForm(client, "/oauth2/token", [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", HostedFlow.redirectURI),
                    ("client_id", "clanboards-mobile"), ("code_verifier", HostedFlow.verifier),
                ], proof: try DPoPClient.proof(key, fixture))
                #expect(redeemed.status == .ok)
                #expect(redeemed.json["token_type"] as? String == "DPoP")
                #expect(DPoPClient.confirmedKey(redeemed.json["access_token"]) == key.thumbprint)
                let r0 = try #require(redeemed.json["refresh_token"] as? String)
                #expect(try await DPoPClient.refresh(client, r0, proof: nil).json["error"] as? String == "invalid_grant")
            }
        }
    }
}
