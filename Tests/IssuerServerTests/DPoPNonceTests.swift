import Foundation
import HTTPTypes
import HummingbirdTesting
import IssuerCore
import IssuerStorage
import Synchronization
import Testing
import TestSupport

/// docs/reference.md, "DPoP", with `ISSUER_DPOP_NONCE=on` (RFC 9449 §8): a token request's proof
/// without the current nonce is `400 use_dpop_nonce` and changes nothing, every answer of the
/// token endpoints names the next nonce, and every process agrees on it.
@Suite("DPoP server nonces at the token endpoints (reference: DPoP)")
struct DPoPNonceTests {
    private let environment = ["ISSUER_DPOP_NONCE": "on"]

    @Test("a sign-in whose proof lacks the nonce is use_dpop_nonce with DPoP-Nonce, nothing written; with it, a bound session")
    func signInDance() async throws {
        try await withIssuer(environment: environment) { fixture in
            try await fixture.test { client in
                let key = DPoPKey()
                let challenge = try await DPoPClient.signIn(client, fixture, proof: try DPoPClient.proof(key, fixture, "/auth/apple/exchange"))
                #expect(challenge.status == .badRequest)
                #expect(challenge.json["error"] as? String == "use_dpop_nonce")
                let nonce = try #require(challenge.headers[DPoPClient.nonceHeader])
                #expect(try await fixture.count("users") == 0)
                #expect(try await fixture.count("dpop_proofs") == 0)

                let wrong = try await DPoPClient.signIn(
                    client, fixture, proof: try DPoPClient.proof(key, fixture, "/auth/apple/exchange", nonce: "not-the-nonce"))
                #expect(wrong.json["error"] as? String == "use_dpop_nonce")

                let answer = try await DPoPClient.signIn(
                    client, fixture, proof: try DPoPClient.proof(key, fixture, "/auth/apple/exchange", nonce: nonce))
                #expect(answer.status == .ok)
                #expect(answer.json["token_type"] as? String == "DPoP")
                #expect(answer.headers[DPoPClient.nonceHeader] != nil)

                // A request without a proof asks for no nonce (a client that does not use DPoP is unaffected).
                let bearer = try await DPoPClient.signIn(client, fixture, proof: nil, subject: "bearer.user")
                #expect(bearer.status == .ok)
                #expect(bearer.headers[DPoPClient.nonceHeader] != nil)
            }
        }
    }

    @Test("a refresh without the nonce leaves the token unspent; the lost answer is retried with the nonce, resent or freshly proven, for the same successor")
    func refreshDanceAndLostAnswer() async throws {
        try await withIssuer(environment: environment) { fixture in
            try await fixture.test { client in
                let key = DPoPKey()
                let first = try await DPoPClient.signIn(client, fixture, proof: try DPoPClient.proof(key, fixture, "/auth/apple/exchange"))
                let nonce = try #require(first.headers[DPoPClient.nonceHeader])
                let signIn = try await DPoPClient.signIn(
                    client, fixture, proof: try DPoPClient.proof(key, fixture, "/auth/apple/exchange", nonce: nonce))
                let r0 = try #require(signIn.json["refresh_token"] as? String)

                // The nonce has moved on (two steps later): the challenge spends nothing.
                fixture.clock.advance(by: 2 * DPoPNonces.step)
                let challenge = try await DPoPClient.refresh(client, r0, proof: try DPoPClient.proof(key, fixture, nonce: nonce))
                #expect(challenge.status == .badRequest)
                #expect(challenge.json["error"] as? String == "use_dpop_nonce")
                #expect(try await DPoPClient.tokenState(fixture, r0) == (spent: false, revoked: false))

                let current = try #require(challenge.headers[DPoPClient.nonceHeader])
                #expect(current != nonce)
                let proof = try DPoPClient.proof(key, fixture, nonce: current)
                let lost = try await DPoPClient.refresh(client, r0, proof: proof)
                #expect(lost.status == .ok)
                let successor = try #require(lost.json["refresh_token"] as? String)

                fixture.clock.advance(by: 2)
                let resend = try await DPoPClient.refresh(client, r0, proof: proof)
                #expect(resend.status == .ok)
                #expect(resend.json["refresh_token"] as? String == successor)
                let fresh = try await DPoPClient.refresh(
                    client, r0, proof: try DPoPClient.proof(key, fixture, nonce: resend.headers[DPoPClient.nonceHeader]))
                #expect(fresh.json["refresh_token"] as? String == successor)
                #expect(try await DPoPClient.tokenState(fixture, successor) == (spent: false, revoked: false))
            }
        }
    }

    @Test("every answer of the token endpoint carries the nonce, errors included; other endpoints and the default setting carry none")
    func everyAnswer() async throws {
        try await withIssuer(environment: environment) { fixture in
            try await fixture.test { client in
                let refused = try await DPoPClient.postForm(client, "/oauth2/token", [("grant_type", "password")], proof: nil)
                #expect(refused.json["error"] as? String == "unsupported_grant_type")
                #expect(refused.headers[DPoPClient.nonceHeader] != nil)
                let jwks = try await client.executeRequest(uri: "/oauth2/jwks.json", method: .get, headers: [:], body: nil)
                #expect(jwks.headers[DPoPClient.nonceHeader] == nil)
            }
        }
        try await withIssuer { fixture in
            try await fixture.test { client in
                let refused = try await DPoPClient.postForm(client, "/oauth2/token", [("grant_type", "password")], proof: nil)
                #expect(refused.headers[DPoPClient.nonceHeader] == nil)
                let key = DPoPKey()
                let signIn = try await DPoPClient.signIn(client, fixture, proof: try DPoPClient.proof(key, fixture, "/auth/apple/exchange"))
                #expect(signIn.status == .ok)
            }
        }
    }

    @Test("a nonce from one process is accepted by another sharing the database and secret")
    func processesAgree() async throws {
        try await withIssuer(environment: environment) { fixture in
            try await fixture.withSharing { other in
                let nonce = Mutex<String?>(nil)
                try await fixture.test { client in
                    let challenge = try await DPoPClient.signIn(
                        client, fixture, proof: try DPoPClient.proof(DPoPKey(), fixture, "/auth/apple/exchange"))
                    nonce.withLock { $0 = challenge.headers[DPoPClient.nonceHeader] }
                }
                let issued = try #require(nonce.withLock { $0 })
                try await other.test { client in
                    let answer = try await DPoPClient.signIn(
                        client, other, proof: try DPoPClient.proof(DPoPKey(), other, "/auth/apple/exchange", nonce: issued))
                    #expect(answer.status == .ok)
                    #expect(answer.json["token_type"] as? String == "DPoP")
                }
            }
        }
    }

    @Test("ISSUER_DPOP_NONCE accepts on and off only")
    func setting() throws {
        #expect(try Configuration(environment: ["ISSUER_DPOP_NONCE": "ON"]).dpopNonce)
        #expect(try !Configuration(environment: [:]).dpopNonce)
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["ISSUER_DPOP_NONCE": "yes"]) }
    }
}
