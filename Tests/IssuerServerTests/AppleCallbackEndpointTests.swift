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
}
