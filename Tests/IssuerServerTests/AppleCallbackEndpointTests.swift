import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import JOSE
import JWTKit
import Synchronization
import Testing
import TestSupport

/// The callback Apple posts back to in the hosted flow (docs/reference.md, "Hosted sign-in").
@Suite("The Apple callback (reference: Hosted sign-in)")
struct AppleCallbackEndpointTests {
    @Test("callback refusals: tampered, expired and other-fleet states are pages; bundle-ID tokens and Apple's cancel are access_denied")
    func callbackRefusals() async throws {
        let clock = ManualClock(Date())
        try await HostedFlowTests.withFixture(clock: clock) { fixture in
            try await fixture.test { client in
                let (state, idToken) = try await HostedFlowTests.throughApple(client, fixture)
                var tampered = Array(state)
                tampered[tampered.count / 2] = tampered[tampered.count / 2] == "A" ? "B" : "A"
                let forged = try await HostedFlowTests.callback(client, [("state", String(tampered)), ("id_token", idToken)])
                #expect(forged.status == .badRequest)
                #expect(forged.headers[.location] == nil)

                let otherFleet = AuthorizationStateSealer(secret: ServerSecret(bytes: Array(repeating: 7, count: 32)), clock: clock)
                    .seal(AuthorizationState(
                        request: AuthorizationRequest(
                            clientID: "clanboards-mobile", redirectURI: HostedFlowTests.redirectURI, scopes: ["openid"], state: "s",
                            codeChallenge: PKCE.challenge(forVerifier: HostedFlowTests.verifier), nonce: nil),
                        now: clock.now))
                #expect(try await HostedFlowTests.callback(client, [("state", otherFleet), ("id_token", idToken)]).status == .badRequest)

                let cancelled = try await HostedFlowTests.callback(client, [("state", state), ("error", "user_cancelled_authorize")])
                #expect(cancelled.status == .found)
                #expect(HostedFlowTests.query(cancelled.headers[.location])["error"] == "access_denied")
                #expect(HostedFlowTests.query(cancelled.headers[.location])["state"] == "client-state")

                let (bundleState, bundleToken) = try await HostedFlowTests.throughApple(client, fixture, audience: IssuerTestFixture.bundleID)
                let wrongAudience = try await HostedFlowTests.callback(client, [("state", bundleState), ("id_token", bundleToken)])
                #expect(HostedFlowTests.query(wrongAudience.headers[.location])["error"] == "access_denied")

                let (otherState, otherToken) = try await HostedFlowTests.throughApple(client, fixture)
                let noNonce = try fixture.apple.identityToken(audience: HostedFlowTests.servicesID)
                let unbound = try await HostedFlowTests.callback(client, [("state", otherState), ("id_token", noNonce)])
                #expect(HostedFlowTests.query(unbound.headers[.location])["error"] == "access_denied", "Apple's nonce is required")

                clock.advance(by: 601)
                let expired = try await HostedFlowTests.callback(client, [("state", otherState), ("id_token", otherToken)])
                #expect(expired.status == .badRequest)
            }
            #expect(try await fixture.count("sessions") == 0)
        }
    }

    @Test("Hosted sign-in, single-use state: one captured (state, id_token) posted three times signs in once; the replays are 400 pages")
    func stateIsSingleUse() async throws {
        try await HostedFlowTests.withFixture { fixture in
            try await fixture.test { client in
                let (state, idToken) = try await HostedFlowTests.throughApple(client, fixture, subject: "001.replayed")
                let first = try await HostedFlowTests.callback(client, [("state", state), ("id_token", idToken)])
                #expect(first.status == .found)
                #expect(HostedFlowTests.query(first.headers[.location])["code"] != nil)
                for _ in 0..<2 {
                    let replay = try await HostedFlowTests.callback(client, [
                        ("state", state), ("id_token", idToken),
                        ("user", #"{"name":{"firstName":"Mallory","lastName":"Replay"}}"#),
                    ])
                    #expect(replay.status == .badRequest)
                    #expect(replay.headers[.location] == nil)
                }
            }
            #expect(try await fixture.count("sessions") == 1)
            #expect(try await fixture.count("authorization_codes") == 1)
            #expect(try await fixture.count("users WHERE given_name = 'Mallory'") == 0)
        }
    }

    @Test("Hosted sign-in: Apple's unsigned user JSON names a user it creates, and never overwrites a stored name")
    func userJSONNeverOverwrites() async throws {
        try await HostedFlowTests.withFixture { fixture in
            try await fixture.test { client in
                let user = #"{"name":{"firstName":"Ada","lastName":"Lovelace"}}"#
                let (state, idToken) = try await HostedFlowTests.throughApple(client, fixture, subject: "001.named")
                let first = try await HostedFlowTests.callback(client, [("state", state), ("id_token", idToken), ("user", user)])
                #expect(first.status == .found)
                let (again, againToken) = try await HostedFlowTests.throughApple(client, fixture, subject: "001.named")
                let second = try await HostedFlowTests.callback(client, [
                    ("state", again), ("id_token", againToken), ("user", #"{"name":{"firstName":"Mallory","lastName":"X"}}"#),
                ])
                #expect(second.status == .found, "the sign-in itself succeeds")
            }
            #expect(try await fixture.count("users WHERE given_name = 'Ada' AND family_name = 'Lovelace'") == 1)
            #expect(try await fixture.count("users WHERE given_name = 'Mallory'") == 0)
        }
    }

    @Test("Hosted sign-in, c_hash (OIDC Core 3.3.2.11): a token whose c_hash does not match the posted code is access_denied and signs nobody in; a matching one signs in")
    func codeHashMustMatch() async throws {
        try await HostedFlowTests.withFixture { fixture in
            try await fixture.test { client in
                for (code, matches) in [("victim-code", false), ("own-code", true)] {
                    let authorize = try await client.get(HostedFlowTests.authorizeQuery())
                    let apple = HostedFlowTests.query(authorize.headers[.location])
                    let idToken = try fixture.apple.identityToken(
                        subject: "001.chash", audience: HostedFlowTests.servicesID,
                        overrides: ["nonce": try #require(apple["nonce"]), "c_hash": IDTokenClaims.codeHash(of: "own-code")])
                    let answer = try await HostedFlowTests.callback(client, [
                        ("state", try #require(apple["state"])), ("id_token", idToken), ("code", code),
                    ])
                    #expect(answer.status == .found)
                    let back = HostedFlowTests.query(answer.headers[.location])
                    if matches {
                        #expect(back["code"] != nil)
                    } else {
                        #expect(back["error"] == "access_denied")
                        #expect(try await fixture.count("sessions") == 0)
                    }
                }
                // No code posted at all beside a token with c_hash: refused too.
                let authorize = try await client.get(HostedFlowTests.authorizeQuery())
                let apple = HostedFlowTests.query(authorize.headers[.location])
                let idToken = try fixture.apple.identityToken(
                    subject: "001.chash", audience: HostedFlowTests.servicesID,
                    overrides: ["nonce": try #require(apple["nonce"]), "c_hash": IDTokenClaims.codeHash(of: "own-code")])
                let bare = try await HostedFlowTests.callback(client, [("state", try #require(apple["state"])), ("id_token", idToken)])
                #expect(HostedFlowTests.query(bare.headers[.location])["error"] == "access_denied")
            }
            #expect(try await fixture.count("sessions") == 1)
        }
    }

    @Test("Hosted sign-in, RFC 9207: every redirect back to the client carries iss (a code, Apple's cancel, an authorize error), and discovery says so")
    func issOnRedirects() async throws {
        try await HostedFlowTests.withFixture { fixture in
            try await fixture.test { client in
                let issuer = "http://127.0.0.1:8080"
                let (state, idToken) = try await HostedFlowTests.throughApple(client, fixture)
                let signedIn = try await HostedFlowTests.callback(client, [("state", state), ("id_token", idToken)])
                #expect(HostedFlowTests.query(signedIn.headers[.location])["iss"] == issuer)
                let (cancelState, _) = try await HostedFlowTests.throughApple(client, fixture)
                let cancelled = try await HostedFlowTests.callback(client, [("state", cancelState), ("error", "user_cancelled_authorize")])
                #expect(HostedFlowTests.query(cancelled.headers[.location])["error"] == "access_denied")
                #expect(HostedFlowTests.query(cancelled.headers[.location])["iss"] == issuer)
                let refused = try await client.get(HostedFlowTests.authorizeQuery(["code_challenge_method": "plain"]))
                #expect(HostedFlowTests.query(refused.headers[.location])["error"] != nil)
                #expect(HostedFlowTests.query(refused.headers[.location])["iss"] == issuer)
                let discovery = try await client.get("/.well-known/openid-configuration")
                #expect(discovery.json["authorization_response_iss_parameter_supported"] as? Bool == true)
            }
        }
    }
}
