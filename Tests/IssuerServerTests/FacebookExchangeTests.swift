import Foundation
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Logging
import Synchronization
import Testing
import TestSupport

/// Facebook's native sign-in (reference: Facebook), against Facebook played over HTTP on loopback
/// (`FakeFacebookServer`): Limited Login's OpenID token, the classic access token checked with the
/// Graph API, and the RFC 8693 grant taking both.
@Suite("Facebook: native sign-in with Limited Login and classic access tokens", .serialized, .timeLimit(.minutes(10)))
struct FacebookExchangeTests {
    /// An issuer with a `facebook` provider pointing at the fake; `body` also gets every log line.
    static func withFacebook(
        environment: [String: String] = [:],
        _ body: @escaping @Sendable (IssuerTestFixture, FakeFacebookServer, any TestClientProtocol, @Sendable () -> [String]) async throws -> Void
    ) async throws {
        let clock = ManualClock(Date())
        try await FakeFacebookServer.with(clock: clock) { facebook in
            let file = try FakeGoogleServer.providersFile([facebook.entry.mapValues { $0 as Any }])
            defer { TestDirectories.remove(file) }
            try await withIssuer(environment: environment.merging(["ISSUER_PROVIDERS_FILE": file.path]) { $1 }, clock: clock) { fixture in
                let lines = Mutex<[String]>([])
                var dependencies = ProviderIssuer.overHTTP(fixture)
                // The background worker sends deletion notices; often, so tests need not wait.
                dependencies.appleWorkerInterval = .milliseconds(50)
                dependencies.logger = Logger(label: "issuer") { label in
                    var handler = JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
                    handler.logLevel = .trace
                    return handler
                }
                try await buildApplication(dependencies).test(.router) { client in
                    try await body(fixture, facebook, client, { lines.withLock { $0 } })
                }
            }
        }
    }

    @Test("Limited Login (both iss spellings) and a classic access token of the same person reach one user; the e-mail is unverified, the name kept")
    func bothPathsOneUser() async throws {
        try await Self.withFacebook { fixture, facebook, client, logs in
            let limited = try await client.postJSON("/auth/facebook/exchange", [
                "id_token": try facebook.limitedLoginToken(subject: "fb-1"), "nonce": "raw-nonce",
            ])
            #expect(limited.status == .ok, "\(limited.json)")
            let older = try await client.postJSON("/auth/facebook/exchange", [
                "id_token": try facebook.limitedLoginToken(subject: "fb-1", issuer: "https://facebook.com"), "nonce": "raw-nonce",
            ])
            #expect(older.status == .ok, "\(older.json)")
            let accessToken = facebook.accessToken(for: "fb-1")
            let classic = try await client.postJSON("/auth/facebook/exchange", ["access_token": accessToken])
            #expect(classic.status == .ok, "\(classic.json)")
            let user = try AppleTestRig.userID(fixture, limited.json)
            #expect(try AppleTestRig.userID(fixture, older.json) == user)
            #expect(try AppleTestRig.userID(fixture, classic.json) == user)
            #expect(try await ProviderIssuer.identity(fixture, classic.json) == ("facebook", "fb-1"))
            let row = try #require(try await fixture.pool.query(
                "SELECT u.given_name, u.family_name, i.email, i.email_verified FROM users u JOIN identities i ON i.user_id = u.id WHERE u.id = $1",
                [user]).single)
            #expect(try row.decodeIfPresent(String.self, column: "given_name") == "Ada")
            #expect(try row.decodeIfPresent(String.self, column: "family_name") == "Lovelace")
            #expect(try row.decodeIfPresent(Bool.self, column: "email_verified") != true, "Facebook marks no address verified")
            // Both Graph calls, with the app token and the appsecret_proof of the user's token.
            let sent = facebook.state.withLock { $0 }
            #expect(sent.debugTokenCalls == 1 && sent.meCalls == 1)
            #expect(sent.appTokens == [FakeFacebookServer.appID + "|" + FakeFacebookServer.appSecret])
            #expect(sent.proofs == [FakeFacebookServer.appSecretProof(accessToken)])
            // The access token is neither stored nor logged, nor the app secret.
            let dump = try await AppleTestRig.dump(fixture.pool)
            #expect(!dump.contains(accessToken))
            #expect(!logs().contains { $0.contains(accessToken) || $0.contains(FakeFacebookServer.appSecret) })
            #expect(MetricsExposition.signIns(fixture.metrics, provider: "facebook", flow: "native", outcome: "success") == 3)
        }
    }

    @Test("a Limited Login token without the raw nonce, or with both credentials or neither, is invalid_request; nothing stored",
          arguments: ["no nonce", "both", "neither"])
    func malformedRequests(_ kind: String) async throws {
        try await Self.withFacebook { fixture, facebook, client, _ in
            var body: [String: Any] = [:]
            switch kind {
            case "no nonce": body["id_token"] = try facebook.limitedLoginToken(subject: "fb-2")
            case "both":
                body["id_token"] = try facebook.limitedLoginToken(subject: "fb-2")
                body["access_token"] = facebook.accessToken(for: "fb-2")
                body["nonce"] = "raw-nonce"
            default: body["nonce"] = "raw-nonce"
            }
            let response = try await client.postJSON("/auth/facebook/exchange", body)
            #expect(response.status == .badRequest)
            #expect(response.json["error"] as? String == "invalid_request", "\(response.json)")
            #expect(try await fixture.count("users") == 0)
            #expect(facebook.state.withLock { $0.debugTokenCalls } == 0, "Facebook is not asked about a malformed request")
        }
    }

    @Test("Limited Login refused as invalid_grant: another nonce, the raw nonce as the claim, another app's audience, another issuer",
          arguments: ["nonce", "raw claim", "audience", "issuer"])
    func limitedLoginRefusals(_ kind: String) async throws {
        try await Self.withFacebook { fixture, facebook, client, _ in
            let token: String
            switch kind {
            case "nonce": token = try facebook.limitedLoginToken(subject: "fb-3", nonce: "another-nonce")
            case "raw claim": token = try facebook.limitedLoginToken(subject: "fb-3", nonce: nil, extra: ["nonce": "raw-nonce"])
            case "audience": token = try facebook.limitedLoginToken(subject: "fb-3", audience: "999999")
            default: token = try facebook.limitedLoginToken(subject: "fb-3", issuer: "https://accounts.google.com")
            }
            let response = try await client.postJSON("/auth/facebook/exchange", ["id_token": token, "nonce": "raw-nonce"])
            #expect(response.status == .badRequest)
            #expect(response.json["error"] as? String == "invalid_grant", "\(response.json)")
            #expect(try await fixture.count("users") == 0)
        }
    }

    @Test("an access token refused as invalid_grant: another app's (token substitution), invalid, not a user's, expired, unknown, or /me naming another user",
          arguments: ["another app", "invalid", "page", "expired", "unknown", "other id"])
    func accessTokenRefusals(_ kind: String) async throws {
        try await Self.withFacebook { fixture, facebook, client, _ in
            let now = fixture.clock.now.timeIntervalSince1970
            let token: String = switch kind {
            case "another app": facebook.accessToken(for: "fb-4") { $0.appID = "5550001" }
            case "invalid": facebook.accessToken(for: "fb-4") { $0.isValid = false }
            case "page": facebook.accessToken(for: "fb-4") { $0.type = "PAGE" }
            case "expired": facebook.accessToken(for: "fb-4") { $0.expiresAt = now - 60 }
            case "unknown": "EAAnever-issued"
            default: facebook.accessToken(for: "fb-4") { $0.meID = "fb-someone-else" }
            }
            let response = try await client.postJSON("/auth/facebook/exchange", ["access_token": token])
            #expect(response.status == .badRequest)
            #expect(response.json["error"] as? String == "invalid_grant", "\(response.json)")
            #expect(try await fixture.count("users") == 0)
            #expect(try await fixture.count("sessions") == 0)
        }
    }

    @Test("a token that expires later is accepted; the Graph API throttling or failing, or an answer that is not the Graph API's (a portal's page, a proxy's 407), is 503 temporarily_unavailable, never 500",
          arguments: ["later", "4", "17", "32", "613", "500", "portal", "proxy"])
    func graphOutages(_ kind: String) async throws {
        try await Self.withFacebook { fixture, facebook, client, _ in
            let token = facebook.accessToken(for: "fb-5") { $0.expiresAt = fixture.clock.now.timeIntervalSince1970 + 3600 }
            if let code = Int(kind), code != 500 {
                facebook.state.withLock { $0.mode = .graphError(code) }
            } else if kind == "500" {
                facebook.state.withLock { $0.mode = .serverError }
            } else if kind == "portal" || kind == "proxy" {
                facebook.state.withLock { $0.mode = .notGraph(status: kind == "portal" ? 200 : 407) }
            }
            let response = try await client.postJSON("/auth/facebook/exchange", ["access_token": token])
            if kind == "later" {
                #expect(response.status == .ok, "\(response.json)")
            } else {
                #expect(response.status == .serviceUnavailable, "\(response.json)")
                #expect(response.json["error"] as? String == "temporarily_unavailable")
                #expect(try await fixture.count("users") == 0)
            }
        }
    }

    @Test("RFC 8693: a Limited Login token chosen by its iss (with its nonce), an access token with subject_issuer; without it invalid_request")
    func tokenExchange() async throws {
        try await Self.withFacebook { fixture, facebook, client, _ in
            let byIssuer = try await client.postForm("/oauth2/token", [
                ("grant_type", TokenExchangeURN.grantType), ("client_id", "clanboards-mobile"),
                ("subject_token", try facebook.limitedLoginToken(subject: "fb-6")), ("subject_token_type", TokenExchangeURN.idTokenType),
                ("nonce", "raw-nonce"),
            ])
            #expect(byIssuer.status == .ok, "\(byIssuer.json)")
            let accessToken = facebook.accessToken(for: "fb-6")
            let byAccessToken = try await client.postForm("/oauth2/token", [
                ("grant_type", TokenExchangeURN.grantType), ("client_id", "clanboards-mobile"), ("subject_token", accessToken),
                ("subject_token_type", TokenExchangeURN.accessTokenType), ("subject_issuer", "facebook"),
            ])
            #expect(byAccessToken.status == .ok, "\(byAccessToken.json)")
            #expect(byAccessToken.json["issued_token_type"] as? String == TokenExchangeURN.accessTokenType)
            #expect(try AppleTestRig.userID(fixture, byIssuer.json) == AppleTestRig.userID(fixture, byAccessToken.json))
            for issuer in [nil, "apple", "nobody"] {
                var form = [
                    ("grant_type", TokenExchangeURN.grantType), ("client_id", "clanboards-mobile"),
                    ("subject_token", facebook.accessToken(for: "fb-6")), ("subject_token_type", TokenExchangeURN.accessTokenType),
                ]
                if let issuer { form.append(("subject_issuer", issuer)) }
                let refused = try await client.postForm("/oauth2/token", form)
                #expect(refused.status == .badRequest, "\(issuer ?? "none")")
                #expect(refused.json["error"] as? String == "invalid_request", "\(issuer ?? "none")")
            }
            #expect(facebook.state.withLock { $0.debugTokenCalls } == 1, "only the named provider's access token reaches Facebook")
        }
    }

    @Test("discovery lists facebook_exchange_endpoint; the callbacks of a provider that is not Facebook's kind are 404")
    func discoveryAndRoutes() async throws {
        try await Self.withFacebook { fixture, _, client, _ in
            let document = try await client.get("/.well-known/openid-configuration")
            #expect(document.json["facebook_exchange_endpoint"] as? String == fixture.configuration.issuerURL.absoluteString + "/auth/facebook/exchange")
            for path in ["/auth/google/deauthorize", "/auth/apple/data-deletion"] {
                let answer = try await client.postForm(path, [("signed_request", "x.y")])
                #expect(answer.status == .notFound, "\(path)")
            }
        }
    }

    @Test("an Android user links Facebook with a classic access token: then its sign-in reaches the same user; both credentials at once are invalid_request")
    func linkWithAccessToken() async throws {
        try await Self.withFacebook { fixture, facebook, client, _ in
            let apple = try await AppleTestRig.signIn(client, fixture, subject: "apple-fb-link", code: nil)
            func link(_ fields: [String: Any]) async throws -> TestResponse {
                var body = fields
                body["provider"] = "facebook"
                body["refresh_token"] = apple["refresh_token"]
                return try await client.executeRequest(
                    uri: "/account/identities", method: .post,
                    headers: [.authorization: "Bearer \(apple["access_token"] as! String)", .contentType: "application/json"],
                    body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
            }
            let both = try await link([
                "access_token": facebook.accessToken(for: "fb-linked-android"), "id_token": try facebook.limitedLoginToken(subject: "fb-linked-android"),
            ])
            #expect(both.status == .badRequest && both.json["error"] as? String == "invalid_request")
            let stolen = try await link(["access_token": facebook.accessToken(for: "fb-linked-android") { $0.appID = "5550001" }])
            #expect(stolen.status == .badRequest && stolen.json["error"] as? String == "invalid_grant", "another app's token links nothing")
            let linked = try await link(["access_token": facebook.accessToken(for: "fb-linked-android")])
            #expect(linked.status == .ok, "\(linked.json)")
            let android = try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: "fb-linked-android")])
            #expect(try AppleTestRig.userID(fixture, android.json) == AppleTestRig.userID(fixture, apple))
            #expect(try await fixture.count("users") == 1)
        }
    }

    @Test("a Facebook e-mail is never linked to: Google's verified sign-in with the same address, linking by e-mail on, makes another user")
    func facebookEmailIsNotLinkedTo() async throws {
        let clock = ManualClock(Date())
        try await FakeFacebookServer.with(clock: clock) { facebook in
            try await FakeGoogleServer.with(clock: clock) { google in
                let entries: [[String: any Sendable]] = [facebook.entry, [
                    "id": "google", "kind": "google", "native_audiences": [FakeGoogleServer.webClientID],
                    "authorized_parties": [FakeGoogleServer.androidClientID], "jwks_uri": google.jwksURI, "link_by_verified_email": true,
                ]]
                let file = try FakeGoogleServer.providersFile(entries.map { $0.mapValues { $0 as Any } })
                defer { TestDirectories.remove(file) }
                try await withIssuer(
                    environment: ["ISSUER_PROVIDERS_FILE": file.path, "ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL": "on"], clock: clock
                ) { fixture in
                    try await buildApplication(ProviderIssuer.overHTTP(fixture)).test(.router) { client in
                        let viaFacebook = try await client.postJSON("/auth/facebook/exchange", [
                            "id_token": try facebook.limitedLoginToken(subject: "fb-mail"), "nonce": "raw-nonce",
                        ])
                        #expect(viaFacebook.status == .ok, "\(viaFacebook.json)")
                        let viaGoogle = try await client.postJSON("/auth/google/exchange", [
                            "id_token": try google.idToken(subject: "g-mail", extra: ["email": "ada@example.com"]),
                        ])
                        #expect(viaGoogle.status == .ok, "\(viaGoogle.json)")
                        #expect(try AppleTestRig.userID(fixture, viaGoogle.json) != AppleTestRig.userID(fixture, viaFacebook.json))
                        #expect(try await fixture.count("users") == 2)
                        // The control: Apple, trusted too, with that verified address does join Google's user.
                        let apple = try await AppleTestRig.signIn(client, fixture, subject: "apple-mail", code: nil, email: "ada@example.com")
                        #expect(try AppleTestRig.userID(fixture, apple) == AppleTestRig.userID(fixture, viaGoogle.json))
                    }
                }
            }
        }
    }
}
