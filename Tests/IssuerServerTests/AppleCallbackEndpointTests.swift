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
    /// The callbacks the issuer refuses (docs/reference.md, "Hosted sign-in"), one test case each.
    enum CallbackRefusal: String, CaseIterable, CustomTestStringConvertible {
        case tamperedState, otherFleetState, appleCancelled, bundleIDAudience, missingNonce, expiredState

        var testDescription: String {
            switch self {
            case .tamperedState: "a tampered state is a 400 page"
            case .otherFleetState: "a state sealed by another fleet's secret is a 400 page"
            case .appleCancelled: "Apple's cancel is access_denied with the client's state"
            case .bundleIDAudience: "a token for the app's bundle ID, not the Services ID, is access_denied"
            case .missingNonce: "a token without Apple's nonce is access_denied"
            case .expiredState: "a state older than 600 s is a 400 page"
            }
        }
    }

    @Test("callback refusals: tampered, expired and other-fleet states are pages; bundle-ID tokens, tokens without the nonce and Apple's cancel are access_denied; nobody is signed in",
          arguments: CallbackRefusal.allCases)
    func callbackRefusals(_ refusal: CallbackRefusal) async throws {
        let clock = ManualClock(Date())
        try await HostedFlow.withFixture(clock: clock) { fixture in
            try await fixture.test { client in
                switch refusal {
                case .tamperedState:
                    let (state, idToken) = try await HostedFlow.throughApple(client, fixture)
                    var tampered = Array(state)
                    tampered[tampered.count / 2] = tampered[tampered.count / 2] == "A" ? "B" : "A"
                    let forged = try await HostedFlow.callback(client, [("state", String(tampered)), ("id_token", idToken)])
                    #expect(forged.status == .badRequest)
                    #expect(forged.headers[.location] == nil)
                case .otherFleetState:
                    let (_, idToken) = try await HostedFlow.throughApple(client, fixture)
                    let otherFleet = AuthorizationStateSealer(secret: ServerSecret(bytes: Array(repeating: 7, count: 32)), clock: clock)
                        .seal(AuthorizationState(
                            request: AuthorizationRequest(
                                clientID: "clanboards-mobile", redirectURI: HostedFlow.redirectURI, scopes: ["openid"], state: "s",
                                codeChallenge: PKCE.challenge(forVerifier: HostedFlow.verifier), nonce: nil),
                            provider: "apple", now: clock.now))
                    #expect(try await HostedFlow.callback(client, [("state", otherFleet), ("id_token", idToken)]).status == .badRequest)
                case .appleCancelled:
                    let (state, _) = try await HostedFlow.throughApple(client, fixture)
                    let cancelled = try await HostedFlow.callback(client, [("state", state), ("error", "user_cancelled_authorize")])
                    #expect(cancelled.status == .found)
                    #expect(HostedFlow.query(cancelled.headers[.location])["error"] == "access_denied")
                    #expect(HostedFlow.query(cancelled.headers[.location])["state"] == "client-state")
                case .bundleIDAudience:
                    let (bundleState, bundleToken) = try await HostedFlow.throughApple(client, fixture, audience: IssuerTestFixture.bundleID)
                    let wrongAudience = try await HostedFlow.callback(client, [("state", bundleState), ("id_token", bundleToken)])
                    #expect(HostedFlow.query(wrongAudience.headers[.location])["error"] == "access_denied")
                case .missingNonce:
                    let (state, _) = try await HostedFlow.throughApple(client, fixture)
                    let noNonce = try fixture.apple.identityToken(audience: HostedFlow.servicesID)
                    let unbound = try await HostedFlow.callback(client, [("state", state), ("id_token", noNonce)])
                    #expect(HostedFlow.query(unbound.headers[.location])["error"] == "access_denied", "Apple's nonce is required")
                case .expiredState:
                    let (state, idToken) = try await HostedFlow.throughApple(client, fixture)
                    clock.advance(by: 601)
                    let expired = try await HostedFlow.callback(client, [("state", state), ("id_token", idToken)])
                    #expect(expired.status == .badRequest)
                }
            }
            #expect(try await fixture.count("sessions") == 0)
        }
    }

    @Test("Hosted sign-in, single-use state: one captured (state, id_token) posted three times signs in once; the replays are 400 pages")
    func stateIsSingleUse() async throws {
        try await HostedFlow.withFixture { fixture in
            try await fixture.test { client in
                let (state, idToken) = try await HostedFlow.throughApple(client, fixture, subject: "001.replayed")
                let first = try await HostedFlow.callback(client, [("state", state), ("id_token", idToken)])
                #expect(first.status == .found)
                #expect(HostedFlow.query(first.headers[.location])["code"] != nil)
                for _ in 0..<2 {
                    let replay = try await HostedFlow.callback(client, [
                        ("state", state), ("id_token", idToken),
                        ("user", #"{"name":{"firstName":"Mallory","lastName":"Replay"}}"#),
                    ])
                    #expect(replay.status == .badRequest)
                    #expect(replay.headers[.location] == nil)
                }
                // Whatever else a replay carries, it is the same page: never a redirect to the client.
                for extra in [[("error", "user_cancelled_authorize")], [("id_token", "not.a.token")], []] {
                    let replay = try await HostedFlow.callback(client, [("state", state)] + extra)
                    #expect(replay.status == .badRequest, "\(extra)")
                    #expect(replay.headers[.location] == nil, "\(extra)")
                }
            }
            #expect(try await fixture.count("sessions") == 1)
            #expect(try await fixture.count("authorization_codes") == 1)
            #expect(try await fixture.count("users WHERE given_name = 'Mallory'") == 0)
        }
    }

    @Test("Hosted sign-in: Apple's unsigned user JSON names a user it creates, and never overwrites a stored name")
    func userJSONNeverOverwrites() async throws {
        try await HostedFlow.withFixture { fixture in
            try await fixture.test { client in
                let user = #"{"name":{"firstName":"Ada","lastName":"Lovelace"}}"#
                let (state, idToken) = try await HostedFlow.throughApple(client, fixture, subject: "001.named")
                let first = try await HostedFlow.callback(client, [("state", state), ("id_token", idToken), ("user", user)])
                #expect(first.status == .found)
                let (again, againToken) = try await HostedFlow.throughApple(client, fixture, subject: "001.named")
                let second = try await HostedFlow.callback(client, [
                    ("state", again), ("id_token", againToken), ("user", #"{"name":{"firstName":"Mallory","lastName":"X"}}"#),
                ])
                #expect(second.status == .found, "the sign-in itself succeeds")
            }
            #expect(try await fixture.count("users WHERE given_name = 'Ada' AND family_name = 'Lovelace'") == 1)
            #expect(try await fixture.count("users WHERE given_name = 'Mallory'") == 0)
        }
    }

    @Test("Hosted sign-in, c_hash (OIDC Core 3.3.2.11): a token whose c_hash does not match the posted code, or with no code posted, is access_denied and signs nobody in; a matching one signs in",
          arguments: [("victim-code", false), ("own-code", true), (nil, false)] as [(String?, Bool)])
    func codeHashMustMatch(postedCode: String?, matches: Bool) async throws {
        try await HostedFlow.withFixture { fixture in
            try await fixture.test { client in
                let authorize = try await client.get(HostedFlow.authorizeQuery())
                let apple = HostedFlow.query(authorize.headers[.location])
                let idToken = try fixture.apple.identityToken(
                    subject: "001.chash", audience: HostedFlow.servicesID,
                    overrides: ["nonce": try #require(apple["nonce"]), "c_hash": IDTokenClaims.codeHash(of: "own-code")])
                var fields = [("state", try #require(apple["state"])), ("id_token", idToken)]
                if let postedCode { fields.append(("code", postedCode)) }
                let answer = try await HostedFlow.callback(client, fields)
                #expect(answer.status == .found)
                let back = HostedFlow.query(answer.headers[.location])
                if matches {
                    #expect(back["code"] != nil)
                } else {
                    #expect(back["error"] == "access_denied")
                }
            }
            #expect(try await fixture.count("sessions") == (matches ? 1 : 0))
        }
    }

    @Test("Hosted sign-in, RFC 9207: every redirect back to the client carries iss (a code, Apple's cancel, an authorize error), and discovery says so")
    func issOnRedirects() async throws {
        try await HostedFlow.withFixture { fixture in
            try await fixture.test { client in
                let issuer = "http://127.0.0.1:8080"
                let (state, idToken) = try await HostedFlow.throughApple(client, fixture)
                let signedIn = try await HostedFlow.callback(client, [("state", state), ("id_token", idToken)])
                #expect(HostedFlow.query(signedIn.headers[.location])["iss"] == issuer)
                let (cancelState, _) = try await HostedFlow.throughApple(client, fixture)
                let cancelled = try await HostedFlow.callback(client, [("state", cancelState), ("error", "user_cancelled_authorize")])
                #expect(HostedFlow.query(cancelled.headers[.location])["error"] == "access_denied")
                #expect(HostedFlow.query(cancelled.headers[.location])["iss"] == issuer)
                let refused = try await client.get(HostedFlow.authorizeQuery(["code_challenge_method": "plain"]))
                #expect(HostedFlow.query(refused.headers[.location])["error"] != nil)
                #expect(HostedFlow.query(refused.headers[.location])["iss"] == issuer)
                let discovery = try await client.get("/.well-known/openid-configuration")
                #expect(discovery.json["authorization_response_iss_parameter_supported"] as? Bool == true)
            }
        }
    }
}
