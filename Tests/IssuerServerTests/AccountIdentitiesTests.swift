import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// One person, several providers (reference: Linked identities): the account's identities,
/// linking with the two proofs, the conflicts the database decides, unlinking.
@Suite("Linked identities: /account and /account/identities", .timeLimit(.minutes(10)))
struct AccountIdentitiesTests {
    /// `POST /account/identities` with `tokens`' two proofs and the identity to link.
    static func link(
        _ client: some TestClientProtocol, _ tokens: [String: Any], provider: String, idToken: String, withRefresh: Bool = true
    ) async throws -> TestResponse {
        var body: [String: Any] = ["provider": provider, "id_token": idToken]
        if withRefresh { body["refresh_token"] = tokens["refresh_token"] }
        return try await client.executeRequest(
            uri: "/account/identities", method: .post,
            headers: [.authorization: "Bearer \(tokens["access_token"] as! String)", .contentType: "application/json"],
            body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
    }

    @Test("GET /account: the user's sub and identities, with each identity's e-mail; no provider sub; a bare request is 401")
    func account() async throws {
        try await ProviderIssuer.withGoogle { fixture, _, client in
            let tokens = try await AppleTestRig.signIn(client, fixture, subject: "link.account", code: nil, email: "me@privaterelay.appleid.com")
            let response = try await AccountRequest.send(client, .get, "/account", tokens, withRefresh: false)
            #expect(response.status == .ok)
            #expect(response.json["sub"] as? String == (try AppleTestRig.userID(fixture, tokens)).uuidString.lowercased())
            let identity = try #require((response.json["identities"] as? [[String: Any]])?.first)
            #expect(Set(identity.keys) == ["provider", "email", "email_verified", "linked_at"])
            #expect(identity["provider"] as? String == "apple" && identity["email"] as? String == "me@privaterelay.appleid.com")
            #expect(!String(buffer: response.body).contains("link.account"), "never the provider's sub")
            #expect(try await AccountRequest.send(client, .get, "/account", nil).status == .unauthorized)
        }
    }

    @Test("link Google from an Apple session: then Google's native sign-in reaches the same user; linking it again changes nothing")
    func linkThenSignIn() async throws {
        try await ProviderIssuer.withGoogle { fixture, google, client in
            let apple = try await AppleTestRig.signIn(client, fixture, subject: "link.one", code: nil)
            let linked = try await Self.link(client, apple, provider: "google", idToken: try google.idToken(subject: "g-link-1"))
            #expect(linked.status == .ok, "\(linked.json)")
            #expect(AccountRequest.providers(linked) == ["apple", "google"])
            let again = try await Self.link(client, apple, provider: "google", idToken: try google.idToken(subject: "g-link-1"))
            #expect(again.status == .ok && AccountRequest.providers(again) == ["apple", "google"])
            let android = try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: "g-link-1")])
            #expect(try AppleTestRig.userID(fixture, android.json) == AppleTestRig.userID(fixture, apple))
            #expect(try await fixture.count("users") == 1)
            #expect(MetricsExposition.value(fixture.metrics, "issuer_identity_links_total", labels: ["provider=\"google\"", "by=\"user\""]) == 1, "counted once")
        }
    }

    @Test("Apple's consent-revoked ends every session of a linked user, the one signed in with Google included (reference: Apple notifications)")
    func consentRevokedEndsLinkedSessions() async throws {
        try await ProviderIssuer.withGoogle { fixture, google, client in
            let apple = try await AppleTestRig.signIn(client, fixture, subject: "link.consent", code: nil)
            #expect(try await Self.link(client, apple, provider: "google", idToken: try google.idToken(subject: "g-consent")).status == .ok)
            let android = try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: "g-consent")])
            #expect(try AppleTestRig.userID(fixture, android.json) == AppleTestRig.userID(fixture, apple))
            let notification = try AppleNotificationsTests.notification(fixture, type: "consent-revoked", sub: "link.consent")
            #expect(try await AppleNotificationsTests.post(client, notification).status == .ok)
            for tokens in [apple, android.json] {
                #expect(try await RefreshRequest.post(client, tokens["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
                #expect(try await UserInfoRequest.send(client, tokens["access_token"] as? String).status == .unauthorized)
            }
            #expect(try await fixture.count("identities") == 2, "the user and both identities stay")
        }
    }

    @Test("a body problem is answered only after the bearer: with a bad bearer an array field is 401, with a good one 400 invalid_request; nothing linked")
    func bodyAfterBearer() async throws {
        try await ProviderIssuer.withGoogle { fixture, google, client in
            let body = ByteBuffer(data: try JSONSerialization.data(withJSONObject: [
                "provider": ["google"], "id_token": try google.idToken(subject: "g-array"),
            ]))
            let bad = try await client.executeRequest(
                uri: "/account/identities", method: .post, headers: [.authorization: "Bearer garbage", .contentType: "application/json"], body: body)
            #expect(bad.status == .unauthorized)
            let apple = try await AppleTestRig.signIn(client, fixture, subject: "link.array", code: nil)
            let good = try await client.executeRequest(
                uri: "/account/identities", method: .post,
                headers: [.authorization: "Bearer \(apple["access_token"] as! String)", .contentType: "application/json"], body: body)
            #expect(good.status == .badRequest)
            #expect(good.json["error"] as? String == "invalid_request")
            #expect(try await fixture.count("identities") == 1)
        }
    }

    @Test("refused, nothing changed: another user's identity (409 identity_in_use), a second account of one provider (409 provider_already_linked), an access token alone, a token that does not verify")
    func refusals() async throws {
        try await ProviderIssuer.withGoogle { fixture, google, client in
            let owner = try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: "g-taken")])
            let apple = try await AppleTestRig.signIn(client, fixture, subject: "link.two", code: nil)
            let inUse = try await Self.link(client, apple, provider: "google", idToken: try google.idToken(subject: "g-taken"))
            #expect(inUse.status == .conflict && inUse.json["error"] as? String == "identity_in_use")
            #expect(!String(buffer: inUse.body).contains((try AppleTestRig.userID(fixture, owner.json)).uuidString.lowercased()), "names no other user")

            #expect(try await Self.link(client, apple, provider: "google", idToken: try google.idToken(subject: "g-mine")).status == .ok)
            let second = try await Self.link(client, apple, provider: "google", idToken: try google.idToken(subject: "g-second"))
            #expect(second.status == .conflict && second.json["error"] as? String == "provider_already_linked")

            let accessOnly = try await Self.link(client, apple, provider: "google", idToken: try google.idToken(subject: "g-x"), withRefresh: false)
            #expect(accessOnly.json["error"] as? String == "invalid_request")
            let forged = try await Self.link(client, apple, provider: "google", idToken: try fixture.apple.identityToken(subject: "g-y"))
            #expect(forged.json["error"] as? String == "invalid_grant")
            #expect(try await fixture.count("identities") == 3, "owner's google, apple's apple and google")
        }
    }

    @Test("two users linking one Google account at once: one wins, the other gets 409")
    func concurrentLinks() async throws {
        try await ProviderIssuer.withGoogle { fixture, google, client in
            let first = try await AppleTestRig.signIn(client, fixture, subject: "race.one", code: nil)
            let second = try await AppleTestRig.signIn(client, fixture, subject: "race.two", code: nil)
            let token = try google.idToken(subject: "g-race")
            async let a = Self.link(client, first, provider: "google", idToken: token)
            async let b = Self.link(client, second, provider: "google", idToken: token)
            let statuses = [try await a.status.code, try await b.status.code].sorted()
            #expect(statuses == [200, 409])
            #expect(try await fixture.count("identities WHERE provider = 'google'") == 1)
        }
    }

    @Test("unlink: 204, then that provider's sign-in is a stranger; the last identity stays (409 last_identity); an unlinked provider is 404")
    func unlink() async throws {
        try await ProviderIssuer.withGoogle { fixture, google, client in
            let apple = try await AppleTestRig.signIn(client, fixture, subject: "unlink.one", code: nil)
            #expect(try await Self.link(client, apple, provider: "google", idToken: try google.idToken(subject: "g-unlink")).status == .ok)
            #expect(try await AccountRequest.send(client, .delete, "/account/identities/google", apple).status == .noContent)
            #expect(try await AccountRequest.send(client, .delete, "/account/identities/google", apple).status == .notFound)
            let last = try await AccountRequest.send(client, .delete, "/account/identities/apple", apple)
            #expect(last.status == .conflict && last.json["error"] as? String == "last_identity")
            let android = try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: "g-unlink")])
            #expect(try AppleTestRig.userID(fixture, android.json) != AppleTestRig.userID(fixture, apple))
            #expect(MetricsExposition.value(fixture.metrics, "issuer_identity_unlinks_total", labels: ["provider=\"google\""]) == 1)
        }
    }

    @Test("unlinking Apple revokes the Apple token held, as account deletion does")
    func unlinkAppleRevokes() async throws {
        // The rig's key stub serves the fake Apple keys at every URL, so a "google" token signed by
        // them verifies: enough to give the user a second identity here.
        let file = try FakeGoogleServer.providersFile([[
            "id": "google", "kind": "google", "native_audiences": [FakeGoogleServer.webClientID], "jwks_uri": "https://keys.example.com/certs",
        ]])
        defer { TestDirectories.remove(file) }
        try await AppleTestRig.run(environment: ["ISSUER_PROVIDERS_FILE": file.path]) { rig in
            let (code, appleToken) = rig.apple.issueCode(subject: "unlink.apple")
            try await AppleTestRig.test(rig.fixture) { client in
                let tokens = try await AppleTestRig.signIn(client, rig.fixture, subject: "unlink.apple", code: code)
                #expect(try await AppleTestRig.heldToken(rig.fixture, userID: try AppleTestRig.userID(rig.fixture, tokens)) == appleToken)
                let googleToken = try rig.fixture.apple.identityToken(
                    subject: "g-apple-unlink", audience: FakeGoogleServer.webClientID, overrides: ["iss": "https://accounts.google.com"])
                #expect(try await Self.link(client, tokens, provider: "google", idToken: googleToken).status == .ok)
                #expect(try await AccountRequest.send(client, .delete, "/account/identities/apple", tokens).status == .noContent)
            }
            #expect(rig.apple.revokedTokens == [appleToken])
            #expect(try await rig.fixture.count("apple_tokens") == 0)
        }
    }

    @Test("link_by_verified_email: a first Google sign-in joins the one user with that verified e-mail; never a relay address, an unverified e-mail, two candidates, with the option off, or an address verified by a provider not trusted for e-mail (Apple without ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL)", arguments: [
        ("joins", true), ("relay", true), ("unverified", true), ("ambiguous", true), ("off", false), ("untrusted target", true),
    ])
    func emailLinking(_ kind: String, _ enabled: Bool) async throws {
        let appleTrusted = kind == "untrusted target" ? "false" : "true"
        try await ProviderIssuer.withGoogle(
            ["link_by_verified_email": enabled], environment: ["ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL": appleTrusted]
        ) { fixture, google, client in
            let email = kind == "relay" ? "x1@privaterelay.appleid.com" : "person@example.com"
            let apple = try await AppleTestRig.signIn(client, fixture, subject: "email.apple", code: nil, email: email)
            if kind == "ambiguous" { _ = try await AppleTestRig.signIn(client, fixture, subject: "email.apple.2", code: nil, email: email) }
            let token = try google.idToken(subject: "g-email", extra: ["email": email, "email_verified": kind != "unverified"])
            let android = try await client.postJSON("/auth/google/exchange", ["id_token": token])
            #expect(android.status == .ok, "\(android.json)")
            let joined = try AppleTestRig.userID(fixture, android.json) == AppleTestRig.userID(fixture, apple)
            #expect(joined == (kind == "joins"), "\(kind)")
            let links = MetricsExposition.value(fixture.metrics, "issuer_identity_links_total", labels: ["provider=\"google\"", "by=\"verified_email\""])
            #expect(links == (kind == "joins" ? 1 : nil))
            // The next sign-in finds the identity as linked the first time.
            let again = try await client.postJSON("/auth/google/exchange", ["id_token": token])
            #expect(try AppleTestRig.userID(fixture, again.json) == AppleTestRig.userID(fixture, android.json))
        }
    }

    @Test("linking Apple with its authorization_code keeps Apple's token, so deleting the account revokes it at Apple")
    func linkAppleKeepsToken() async throws {
        let file = try FakeGoogleServer.providersFile([[
            "id": "google", "kind": "google", "native_audiences": [FakeGoogleServer.webClientID], "jwks_uri": "https://keys.example.com/certs",
        ]])
        defer { TestDirectories.remove(file) }
        try await AppleTestRig.run(environment: ["ISSUER_PROVIDERS_FILE": file.path]) { rig in
            let (code, appleToken) = rig.apple.issueCode(subject: "link.apple.custody")
            try await AppleTestRig.test(rig.fixture) { client in
                let googleToken = try rig.fixture.apple.identityToken(
                    subject: "g-first", audience: FakeGoogleServer.webClientID, overrides: ["iss": "https://accounts.google.com"])
                let tokens = try await client.postJSON("/auth/google/exchange", ["id_token": googleToken]).json
                let response = try await client.executeRequest(
                    uri: "/account/identities", method: .post,
                    headers: [.authorization: "Bearer \(tokens["access_token"] as! String)", .contentType: "application/json"],
                    body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: [
                        "refresh_token": tokens["refresh_token"]!, "provider": "apple", "authorization_code": code,
                        "id_token": try rig.fixture.apple.identityToken(subject: "link.apple.custody"),
                    ])))
                #expect(response.status == .ok, "\(response.json)")
                #expect(try await AppleTestRig.heldToken(rig.fixture, userID: try AppleTestRig.userID(rig.fixture, tokens)) == appleToken)
                #expect(try await AccountDeletionRequest.delete(client, session: tokens).status == .noContent)
            }
            #expect(rig.apple.revokedTokens == [appleToken])
        }
    }
}
