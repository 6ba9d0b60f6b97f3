import Foundation
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

@Suite("Apple token custody: the authorization code redeemed, the refresh token sealed (reference: Account deletion)", .timeLimit(.minutes(10)))
struct AppleCustodyTests {
    @Test("the code is redeemed during the sign-in; Apple's refresh token is held, sealed, under the user")
    func redeemedAtOnce() async throws {
        try await AppleTestRig.run { rig in
            let (code, appleToken) = rig.apple.issueCode(subject: "custody.now")
            try await AppleTestRig.test(rig.fixture) { client in
                let tokens = try await AppleTestRig.signIn(client, rig.fixture, subject: "custody.now", code: code)
                let userID = try AppleTestRig.userID(rig.fixture, tokens)
                #expect(try await AppleTestRig.heldToken(rig.fixture, userID: userID) == appleToken)
                let clientID = try await rig.fixture.pool.query("SELECT client_id FROM apple_tokens").single?.decode(String.self, column: "client_id")
                #expect(clientID == IssuerTestFixture.bundleID, "client_id is the Apple token's aud")
                #expect(try await rig.fixture.count("apple_code_redemptions") == 0)
            }
            #expect(rig.apple.state.withLock { $0.tokenRequests } == 1)
            #expect(rig.apple.state.withLock { $0.refusedSecrets } == 0)
            #expect(MetricsExposition.value(rig.fixture.metrics, #"issuer_apple_code_redemptions_total{outcome="redeemed"}"#) == 1)
        }
    }

    @Test("the stored token and the pending code appear in no encoding in a dump of the database")
    func notInDump() async throws {
        try await AppleTestRig.run { rig in
            let (code, appleToken) = rig.apple.issueCode(subject: "custody.dump")
            let (pendingCode, _) = rig.apple.issueCode(subject: "custody.dump2")
            try await AppleTestRig.test(rig.fixture) { client in
                _ = try await AppleTestRig.signIn(client, rig.fixture, subject: "custody.dump", code: code)
                rig.apple.mode = .unavailable
                _ = try await AppleTestRig.signIn(client, rig.fixture, subject: "custody.dump2", code: pendingCode)
            }
            #expect(try await rig.fixture.count("apple_tokens") == 1)
            #expect(try await rig.fixture.count("apple_code_redemptions") == 1)
            let dump = try await AppleTestRig.dump(rig.fixture.pool)
            for secret in [appleToken, pendingCode] {
                for encoding in AppleTestRig.encodings(secret) {
                    #expect(!dump.contains(encoding), "found an encoding of a secret in the dump")
                }
            }
        }
    }

    @Test("Apple down at sign-in: the sign-in succeeds, the code is queued, and the worker redeems it once Apple is back")
    func retriedInBackground() async throws {
        try await AppleTestRig.run { rig in
            let (code, appleToken) = rig.apple.issueCode(subject: "custody.later")
            rig.apple.mode = .unavailable
            try await AppleTestRig.test(rig.fixture) { client in
                let tokens = try await AppleTestRig.signIn(client, rig.fixture, subject: "custody.later", code: code)
                let userID = try AppleTestRig.userID(rig.fixture, tokens)
                #expect(try await AppleTestRig.heldToken(rig.fixture, userID: userID) == nil)
                #expect(try await rig.fixture.count("apple_code_redemptions") == 1)
                rig.apple.mode = .up
                rig.fixture.clock.advance(by: 60)
                #expect(try await AppleTestRig.eventually { try await AppleTestRig.heldToken(rig.fixture, userID: userID) == appleToken })
                #expect(try await rig.fixture.count("apple_code_redemptions") == 0)
            }
        }
    }

    @Test("Apple down for the code's whole life: the pending code is dropped at 5 minutes; Apple refusing: nothing queued")
    func expiresAndRefused() async throws {
        try await AppleTestRig.run { rig in
            let (code, _) = rig.apple.issueCode(subject: "custody.expired")
            rig.apple.mode = .unavailable
            try await AppleTestRig.test(rig.fixture) { client in
                _ = try await AppleTestRig.signIn(client, rig.fixture, subject: "custody.expired", code: code)
                rig.fixture.clock.advance(by: AppleTokenCustody.codeLifetime + .seconds(1))
                #expect(try await AppleTestRig.eventually { try await rig.fixture.count("apple_code_redemptions") == 0 })
                #expect(try await rig.fixture.count("apple_tokens") == 0)
                // Counted just after the row's deletion commits, so waited for in its turn.
                #expect(try await AppleTestRig.eventually {
                    MetricsExposition.value(rig.fixture.metrics, #"issuer_apple_code_redemptions_total{outcome="expired"}"#) == 1
                })

                rig.apple.mode = .up
                let refused = try await AppleTestRig.signIn(client, rig.fixture, subject: "custody.refused", code: "not-a-code-apple-issued")
                #expect(refused["access_token"] != nil, "the sign-in succeeds whatever Apple says")
                #expect(try await rig.fixture.count("apple_code_redemptions") == 0)
                #expect(try await rig.fixture.count("apple_tokens") == 0)
            }
        }
    }

    @Test("without Apple developer credentials the code is ignored; an oversized code is invalid_request")
    func notConfigured() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await client.postJSON("/auth/apple/exchange", [
                    "id_token": try fixture.apple.identityToken(subject: "custody.none"), "authorization_code": "c123",
                ])
                #expect(response.status == .ok)
                let long = try await client.postJSON("/auth/apple/exchange", [
                    "id_token": try fixture.apple.identityToken(subject: "custody.none"),
                    "authorization_code": String(repeating: "c", count: AppleTokenCustody.maximumCodeLength + 1),
                ])
                #expect(long.json["error"] as? String == "invalid_request")
            }
            #expect(try await fixture.count("apple_tokens") == 0)
            #expect(try await fixture.count("apple_code_redemptions") == 0)
        }
    }
}
