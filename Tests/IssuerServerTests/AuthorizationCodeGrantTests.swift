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

/// POST /oauth2/token with grant_type=authorization_code: the code the hosted flow (docs/reference.md, "Hosted sign-in")
/// hands out redeems once, for its client, redirect URI and PKCE verifier.
@Suite("The authorization_code grant (reference: Hosted sign-in, RFC 7636)")
struct AuthorizationCodeGrantTests {
    @Test("a code redeems once; a second redemption fails and revokes what the first issued")
    func codeReplay() async throws {
        try await HostedFlow.withFixture { fixture in
            try await fixture.test { client in
                let (state, idToken) = try await HostedFlow.throughApple(client, fixture)
                let callback = try await HostedFlow.callback(client, [("state", state), ("id_token", idToken)])
                let code = try #require(HostedFlow.query(callback.headers[.location])["code"])
                let redeem: [(String, String)] = [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", HostedFlow.redirectURI),
                    ("client_id", "clanboards-mobile"), ("code_verifier", HostedFlow.verifier),
                ]
                let first = try await client.postForm("/oauth2/token", redeem)
                #expect(first.status == .ok)
                let refresh = try #require(first.json["refresh_token"] as? String)
                let second = try await client.postForm("/oauth2/token", redeem)
                #expect(second.status == .badRequest)
                #expect(second.json["error"] as? String == "invalid_grant")
                let afterReplay = try await client.postForm("/oauth2/token", [
                    ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "clanboards-mobile"),
                ])
                #expect(afterReplay.json["error"] as? String == "invalid_grant", "the first redemption's session is revoked")
            }
        }
    }

    @Test("a code refuses another verifier, client or redirect URI, and expires after 60 s", arguments: [
        "wrong verifier", "plain verifier", "other client", "other redirect", "expired", "missing verifier",
    ])
    func codeBindings(_ mistake: String) async throws {
        let clientsFile = try IssuerTestFixture.twoClientsFile()
        let clock = ManualClock(Date())
        try await HostedFlow.withFixture(["ISSUER_CLIENTS_FILE": clientsFile.path], clock: clock) { fixture in
            try await fixture.test { client in
                let authorize = try await client.get(HostedFlow.authorizeQuery(["redirect_uri": "clanboards://cb", "scope": "openid"]))
                let apple = HostedFlow.query(authorize.headers[.location])
                let idToken = try fixture.apple.identityToken(audience: HostedFlow.servicesID, overrides: ["nonce": try #require(apple["nonce"])])
                let callback = try await HostedFlow.callback(client, [("state", try #require(apple["state"])), ("id_token", idToken)])
                let code = try #require(HostedFlow.query(callback.headers[.location])["code"])
                var fields: [String: String] = [
                    "grant_type": "authorization_code", "code": code, "redirect_uri": "clanboards://cb",
                    "client_id": "clanboards-mobile", "code_verifier": HostedFlow.verifier,
                ]
                switch mistake {
                case "wrong verifier": fields["code_verifier"] = "another-" + String(repeating: "y", count: 50)
                case "plain verifier": fields["code_verifier"] = PKCE.challenge(forVerifier: HostedFlow.verifier)
                case "other client": fields["client_id"] = "other-app"
                case "other redirect": fields["redirect_uri"] = "other://cb"
                case "expired": clock.advance(by: 61)
                default: fields["code_verifier"] = nil
                }
                let response = try await client.postForm("/oauth2/token", fields.map { ($0.key, $0.value) })
                #expect(response.status == .badRequest)
                #expect(response.json["error"] as? String == (mistake == "missing verifier" ? "invalid_request" : "invalid_grant"))
                if mistake != "missing verifier" {
                    fields["code_verifier"] = HostedFlow.verifier
                    fields["client_id"] = "clanboards-mobile"
                    fields["redirect_uri"] = "clanboards://cb"
                    let retry = try await client.postForm("/oauth2/token", fields.map { ($0.key, $0.value) })
                    #expect(retry.json["error"] as? String == "invalid_grant", "a refused code is spent")
                }
            }
        }
    }
}
