import Foundation
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// Native sign-in with Google and any OpenID provider (reference: Google and other OpenID
/// providers), against a provider served over HTTP on loopback.
@Suite("Providers: native sign-in with Google and other OpenID providers", .timeLimit(.minutes(10)))
struct ProviderExchangeTests {
    @Test("a Credential Manager token (aud the web client id, azp the Android one) signs in; both spellings of Google's iss; the user is found by (google, sub)")
    func googleSignsIn() async throws {
        try await ProviderIssuer.withGoogle { fixture, google, client in
            let first = try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: "g-1")])
            #expect(first.status == .ok, "\(first.json)")
            let second = try await client.postJSON("/auth/google/exchange", [
                "id_token": try google.idToken(subject: "g-1", issuer: "accounts.google.com"),
            ])
            #expect(second.status == .ok, "\(second.json)")
            #expect(try AppleTestRig.userID(fixture, first.json) == AppleTestRig.userID(fixture, second.json))
            #expect(try await ProviderIssuer.identity(fixture, first.json) == ("google", "g-1"))
            // The same `sub` at Apple is another person.
            let apple = try await AppleTestRig.signIn(client, fixture, subject: "g-1", code: nil)
            #expect(try AppleTestRig.userID(fixture, apple) != AppleTestRig.userID(fixture, first.json))
            #expect(first.json["id_token"] != nil && first.json["refresh_token"] != nil)
            #expect(MetricsExposition.signIns(fixture.metrics, provider: "google", flow: "native", outcome: "success") == 2)
            #expect(MetricsExposition.signIns(fixture.metrics, provider: "apple", flow: "native", outcome: "success") == 1)
            // Each provider's keys were fetched once (then cached), and counted under its name.
            #expect(MetricsExposition.value(fixture.metrics, "issuer_jwks_fetches_total", labels: [#"provider="google""#]) == 1)
            #expect(MetricsExposition.value(fixture.metrics, "issuer_jwks_fetches_total", labels: [#"provider="apple""#]) == 1)
        }
    }

    @Test("refused as invalid_grant: another audience, an unlisted azp, another issuer, a forged signature, a raw nonce claim", arguments: [
        "audience", "azp", "issuer", "forged", "raw-nonce",
    ])
    func refusals(_ kind: String) async throws {
        try await ProviderIssuer.withGoogle { fixture, google, client in
            var body: [String: Any] = [:]
            switch kind {
            case "audience": body["id_token"] = try google.idToken(subject: "g-2", audience: FakeGoogleServer.androidClientID)
            case "azp": body["id_token"] = try google.idToken(subject: "g-2", azp: "999-other.apps.googleusercontent.com")
            case "issuer": body["id_token"] = try google.idToken(subject: "g-2", issuer: "https://appleid.apple.com")
            case "forged": body["id_token"] = try fixture.apple.identityToken(subject: "g-2", audience: FakeGoogleServer.webClientID, overrides: ["iss": "https://accounts.google.com"])
            default:
                // The claim must be the hash of the raw nonce sent here, not the raw nonce.
                body["id_token"] = try google.idToken(subject: "g-2", extra: ["nonce": "raw-nonce"])
                body["nonce"] = "raw-nonce"
            }
            let response = try await client.postJSON("/auth/google/exchange", body)
            #expect(response.status == .badRequest)
            #expect(response.json["error"] as? String == "invalid_grant")
            #expect(try await fixture.count("users") == 0, "nothing stored")
            #expect(MetricsExposition.signIns(fixture.metrics, provider: "google", flow: "native", outcome: "invalid_grant") == 1)
        }
    }

    @Test("an azp equal to the audience (Google's hosted flow) is accepted beside the listed Android client ids")
    func azpEqualToAudience() async throws {
        try await ProviderIssuer.withGoogle { _, google, client in
            let response = try await client.postJSON("/auth/google/exchange", [
                "id_token": try google.idToken(subject: "g-web", azp: FakeGoogleServer.webClientID),
            ])
            #expect(response.status == .ok, "\(response.json)")
        }
    }

    @Test("the hashed nonce rule of the Apple exchange: hex(SHA-256(nonce)) in the token, the raw nonce in the request")
    func hashedNonce() async throws {
        try await ProviderIssuer.withGoogle { _, google, client in
            let response = try await client.postJSON("/auth/google/exchange", [
                "id_token": try google.idToken(subject: "g-3", nonce: "n-123"), "nonce": "n-123",
            ])
            #expect(response.status == .ok, "\(response.json)")
            let missing = try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: "g-3", nonce: "n-123")])
            #expect(missing.json["error"] as? String == "invalid_grant", "a token that carries a nonce needs the request's")
        }
    }

    @Test("hosted_domain: only tokens of that Workspace domain")
    func hostedDomain() async throws {
        try await ProviderIssuer.withGoogle(["hosted_domain": "example.com"]) { _, google, client in
            let other = try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: "g-4")])
            #expect(other.json["error"] as? String == "invalid_grant")
            let member = try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: "g-4", extra: ["hd": "example.com"])])
            #expect(member.status == .ok, "\(member.json)")
        }
    }

    @Test("a provider that is not configured is a 404 in RFC 6749 JSON")
    func unknownProvider() async throws {
        try await ProviderIssuer.withGoogle { _, google, client in
            let response = try await client.postJSON("/auth/facebook/exchange", ["id_token": try google.idToken(subject: "g-5")])
            #expect(response.status == .notFound)
            #expect(response.json["error"] as? String == "invalid_request")
        }
    }

    @Test("the RFC 8693 grant takes a Google token too, choosing the provider by its iss")
    func tokenExchangeGrant() async throws {
        try await ProviderIssuer.withGoogle { fixture, google, client in
            let response = try await client.postForm("/oauth2/token", [
                ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
                ("subject_token", try google.idToken(subject: "g-6")),
                ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
                ("client_id", "clanboards-mobile"),
            ])
            #expect(response.status == .ok, "\(response.json)")
            #expect(try await ProviderIssuer.identity(fixture, response.json) == ("google", "g-6"))
        }
    }

    @Test("the RFC 8693 grant refuses a token whose iss no provider has without asking any provider, even while Apple's keys are down")
    func tokenExchangeUnknownIssuer() async throws {
        try await ProviderIssuer.withGoogle { fixture, google, client in
            fixture.appleFetcher.setFailing(true)
            let fetchesBefore = fixture.appleFetcher.fetchCount
            let response = try await client.postForm("/oauth2/token", [
                ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
                ("subject_token", try google.idToken(subject: "g-7", issuer: "https://issuer.unknown.example")),
                ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
                ("client_id", "clanboards-mobile"),
            ])
            #expect(response.status == .badRequest, "\(response.json)")
            #expect(response.json["error"] as? String == "invalid_request")
            #expect(fixture.appleFetcher.fetchCount == fetchesBefore, "Apple's keys are not fetched for another issuer's token")
            #expect(try await fixture.count("users") == 0)
            // The client is judged before the token, as for any provider's token.
            let unknownClient = try await client.postForm("/oauth2/token", [
                ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
                ("subject_token", try google.idToken(subject: "g-7", issuer: "https://issuer.unknown.example")),
                ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
                ("client_id", "not-registered"),
            ])
            #expect(unknownClient.status == .badRequest, "\(unknownClient.json)")
            #expect(unknownClient.json["error"] as? String == "invalid_client")
        }
    }

    @Test("discovery lists google_exchange_endpoint beside apple_exchange_endpoint")
    func discovery() async throws {
        try await ProviderIssuer.withGoogle { fixture, _, client in
            let response = try await client.execute(uri: "/.well-known/openid-configuration", method: .get)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            let base = fixture.configuration.issuerURL.absoluteString
            #expect(document["google_exchange_endpoint"] as? String == base + "/auth/google/exchange")
            #expect(document["apple_exchange_endpoint"] as? String == base + "/auth/apple/exchange")
        }
    }

    @Test("kind oidc: the keys are found through the provider's discovery document, fetched once for many sign-ins")
    func oidcDiscovery() async throws {
        try await ProviderIssuer.withProvider({ ["id": "corp", "kind": "oidc", "issuer": $0.issuer, "native_audiences": ["corp-app"]] }) { fixture, provider, client in
            for subject in ["c-1", "c-2", "c-1"] {
                let response = try await client.postJSON("/auth/corp/exchange", [
                    "id_token": try provider.idToken(subject: subject, issuer: provider.issuer, audience: "corp-app", azp: nil),
                ])
                #expect(response.status == .ok, "\(response.json)")
            }
            #expect(try await fixture.count("identities WHERE provider = 'corp'") == 2)
            #expect(provider.state.withLock { ($0.discoveryFetches, $0.jwksFetches) } == (1, 1))
        }
    }

    @Test("a provider that signs with ES256 (RFC 7518 §3.4): accepted with its P-256 key; the same token is refused by a provider allowed only RS256 (Apple)")
    func es256Provider() async throws {
        try await ProviderIssuer.withProvider({ ["id": "corp", "kind": "oidc", "issuer": $0.issuer, "native_audiences": ["corp-app"]] }) { fixture, provider, client in
            let token = try await provider.es256IDToken(subject: "ec-user", audience: "corp-app", now: fixture.clock.now)
            let accepted = try await client.postJSON("/auth/corp/exchange", ["id_token": token])
            #expect(accepted.status == .ok, "\(accepted.json)")
            let apple = try await client.postJSON("/auth/apple/exchange", ["id_token": token])
            #expect(apple.json["error"] as? String == "invalid_grant")
            #expect(try await fixture.count("identities WHERE provider = 'corp' AND subject = 'ec-user'") == 1)
        }
    }
}
