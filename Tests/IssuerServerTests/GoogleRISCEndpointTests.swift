import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import IssuerStorage
@testable import IssuerServer
import JOSE
import Testing
import TestSupport

/// `POST /auth/google/risc` (reference: Google's account-protection events): Google's security
/// event tokens, signed by the fake Google's keys and verified through its RISC key set served
/// over HTTP on loopback.
///
/// One test at a time: each holds an issuer of its own (a database and its pools), and the suites
/// run in parallel share one test cluster's connections.
@Suite("POST /auth/google/risc (reference: Google's account-protection events)", .serialized, .timeLimit(.minutes(10)))
struct GoogleRISCEndpointTests {
    /// The issuer with a `google` provider whose ID-token keys and RISC keys are the fake's.
    static func withRISC(
        environment: [String: String] = [:],
        _ body: @escaping @Sendable (IssuerTestFixture, FakeGoogleServer, any TestClientProtocol) async throws -> Void
    ) async throws {
        let clock = ManualClock(Date())
        try await FakeGoogleServer.with(clock: clock) { google in
            let file = try FakeGoogleServer.providersFile([[
                "id": "google", "kind": "google", "native_audiences": [FakeGoogleServer.webClientID],
                "authorized_parties": [FakeGoogleServer.androidClientID], "jwks_uri": google.jwksURI,
                "risc_jwks_uri": google.riscJWKSURI,
            ]])
            defer { TestDirectories.remove(file) }
            var environment = environment
            environment["ISSUER_PROVIDERS_FILE"] = file.path
            try await withIssuer(environment: environment, clock: clock) { fixture in
                try await buildApplication(ProviderIssuer.overHTTP(fixture)).test(.router) { client in
                    try await body(fixture, google, client)
                }
            }
        }
    }

    /// The token as the whole body, as Google delivers it (RFC 8935 §2).
    static func post(
        _ client: any TestClientProtocol, _ token: String, contentType: String = "application/secevent+jwt"
    ) async throws -> TestResponse {
        try await client.executeRequest(
            uri: "/auth/google/risc", method: .post, headers: [.contentType: contentType], body: ByteBuffer(string: token))
    }

    /// A native sign-in with Google; answers the token response.
    static func signIn(_ client: any TestClientProtocol, _ google: FakeGoogleServer, subject: String) async throws -> [String: Any] {
        let response = try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: subject)])
        #expect(response.status == .ok, "\(response.json)")
        return response.json
    }

    /// Whether the session of these tokens still works: its access token at /userinfo.
    static func isLive(_ client: any TestClientProtocol, _ tokens: [String: Any]) async throws -> Bool {
        try await UserInfoRequest.send(client, tokens["access_token"] as? String).status == .ok
    }

    /// The identity as `issuer users show` reads it.
    static func identity(_ fixture: IssuerTestFixture, _ userID: UUID) async throws -> SessionDirectoryStore.IdentitySummary? {
        try await SessionDirectoryStore(pool: fixture.pool).user(id: userID)?.identities.first { $0.provider == "google" }
    }

    static func metric(_ fixture: IssuerTestFixture, _ type: String) -> Double? {
        MetricsExposition.value(fixture.metrics, #"issuer_google_security_events_total{type="\#(type)"}"#)
    }

    @Test("sessions-revoked and tokens-revoked (both URIs Google uses): every session begun by the event's iat is revoked, a later one stays; the user signs in again",
          arguments: [
            "sessions-revoked", "tokens-revoked", "https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked",
          ])
    func sessionsRevoked(type: String) async throws {
        try await Self.withRISC { fixture, google, client in
            let before = try await Self.signIn(client, google, subject: "g-revoke")
            let userID = try AppleTestRig.userID(fixture, before)
            let other = try await Self.signIn(client, google, subject: "g-bystander")
            fixture.clock.advance(by: 5)
            let token = try google.securityEventToken(type: type, subject: "g-revoke", issuedAt: fixture.clock.now)
            fixture.clock.advance(by: 10)
            // Begun after the event: a new sign-in, which the event does not reach.
            let after = try await Self.signIn(client, google, subject: "g-revoke")
            let answer = try await Self.post(client, token)
            #expect(answer.status == .accepted)
            #expect(answer.headers[.cacheControl] == "no-store")
            #expect(try await !Self.isLive(client, before))
            #expect(try await RefreshRequest.post(client, before["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
            #expect(try await Self.isLive(client, after), "a session begun after the event's iat stays")
            #expect(try await Self.isLive(client, other), "another user's sessions stay")
            #expect(try await fixture.count("sessions WHERE revoked_reason LIKE 'google %'") == 1)
            let again = try await Self.signIn(client, google, subject: "g-revoke")
            #expect(try AppleTestRig.userID(fixture, again) == userID, "the user stays and signs in again")
            #expect(Self.metric(fixture, type.hasSuffix("sessions-revoked") ? "sessions-revoked" : "tokens-revoked") == 1)
        }
    }

    @Test("account-disabled for hijacking: sessions revoked and sign-in with the identity refused (400 invalid_grant, disabled by Google) until account-enabled; an older account-enabled delivered late changes nothing")
    func hijacking() async throws {
        try await Self.withRISC { fixture, google, client in
            let tokens = try await Self.signIn(client, google, subject: "g-hijacked")
            let userID = try AppleTestRig.userID(fixture, tokens)
            fixture.clock.advance(by: 2)
            let disabledAt = fixture.clock.now
            #expect(try await Self.post(client, try google.securityEventToken(
                type: "account-disabled", subject: "g-hijacked", event: ["reason": "hijacking"], issuedAt: disabledAt)).status == .accepted)
            #expect(try await !Self.isLive(client, tokens))
            let sessions = try await fixture.count("sessions")

            fixture.clock.advance(by: 2)
            let refused = try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: "g-hijacked")])
            #expect(refused.status == .badRequest)
            #expect(refused.json["error"] as? String == "invalid_grant")
            #expect((refused.json["error_description"] as? String)?.contains("disabled by Google") == true, "\(refused.json)")
            let exchanged = try await client.postForm("/oauth2/token", [
                ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
                ("subject_token", try google.idToken(subject: "g-hijacked")),
                ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("client_id", "clanboards-mobile"),
            ])
            #expect(exchanged.status == .badRequest)
            #expect(exchanged.json["error"] as? String == "invalid_grant", "the RFC 8693 grant refuses it too")
            #expect(try await fixture.count("sessions") == sessions, "a refused sign-in writes no session")
            let shown = try #require(try await Self.identity(fixture, userID))
            #expect(shown.disabledReason == "hijacking" && shown.refusesSignIn)
            #expect(shown.disabledAt.map { abs($0.timeIntervalSince(disabledAt)) < 1 } == true)

            // Another Google account signs in as ever.
            _ = try await Self.signIn(client, google, subject: "g-fine")
            // An account-enabled issued before the disable, delivered after it: too old to undo it.
            #expect(try await Self.post(client, try google.securityEventToken(
                type: "account-enabled", subject: "g-hijacked", issuedAt: disabledAt.addingTimeInterval(-60))).status == .accepted)
            #expect(try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: "g-hijacked")]).status == .badRequest)

            fixture.clock.advance(by: 2)
            #expect(try await Self.post(client, try google.securityEventToken(
                type: "account-enabled", subject: "g-hijacked", issuedAt: fixture.clock.now)).status == .accepted)
            let again = try await Self.signIn(client, google, subject: "g-hijacked")
            #expect(try AppleTestRig.userID(fixture, again) == userID, "enabled again: the same user signs in")
            let enabled = try #require(try await Self.identity(fixture, userID))
            #expect(enabled.disabledAt == nil && enabled.disabledReason == nil && !enabled.refusesSignIn)
            #expect(Self.metric(fixture, "account-disabled") == 1)
            #expect(Self.metric(fixture, "account-enabled") == 2)
        }
    }

    @Test("account-disabled for another reason, or none: recorded for issuer users show; sessions and sign-in untouched", arguments: ["bulk-account", ""])
    func disabledOtherwise(reason: String) async throws {
        try await Self.withRISC { fixture, google, client in
            let tokens = try await Self.signIn(client, google, subject: "g-bulk")
            let userID = try AppleTestRig.userID(fixture, tokens)
            fixture.clock.advance(by: 2)
            let token = try google.securityEventToken(
                type: "account-disabled", subject: "g-bulk", event: reason.isEmpty ? [:] : ["reason": reason], issuedAt: fixture.clock.now)
            #expect(try await Self.post(client, token).status == .accepted)
            #expect(try await Self.isLive(client, tokens))
            let shown = try #require(try await Self.identity(fixture, userID))
            #expect(shown.disabledAt != nil)
            #expect(shown.disabledReason == (reason.isEmpty ? nil : reason))
            #expect(!shown.refusesSignIn)
            _ = try await Self.signIn(client, google, subject: "g-bulk")
            #expect(try await fixture.count("sessions WHERE revoked_at IS NOT NULL") == 0)
        }
    }

    @Test("account-credential-change-required: recorded for issuer users show; sessions and sign-in untouched")
    func credentialChangeRequired() async throws {
        try await Self.withRISC { fixture, google, client in
            let tokens = try await Self.signIn(client, google, subject: "g-credential")
            let userID = try AppleTestRig.userID(fixture, tokens)
            #expect(try await Self.identity(fixture, userID)?.credentialChangeRequiredAt == nil)
            fixture.clock.advance(by: 2)
            let token = try google.securityEventToken(type: "account-credential-change-required", subject: "g-credential", issuedAt: fixture.clock.now)
            #expect(try await Self.post(client, token).status == .accepted)
            #expect(try await Self.identity(fixture, userID)?.credentialChangeRequiredAt != nil)
            #expect(try await Self.isLive(client, tokens))
            _ = try await Self.signIn(client, google, subject: "g-credential")
            #expect(Self.metric(fixture, "account-credential-change-required") == 1)
        }
    }

    @Test("account-purged of a user's last identity deletes the user as account deletion does: sessions, tokens, identity gone, the audit record kept")
    func purgedLastIdentity() async throws {
        try await Self.withRISC { fixture, google, client in
            let tokens = try await Self.signIn(client, google, subject: "g-purged")
            let userID = try AppleTestRig.userID(fixture, tokens)
            let other = try await Self.signIn(client, google, subject: "g-stays")
            fixture.clock.advance(by: 2)
            #expect(try await Self.post(client, try google.securityEventToken(type: "account-purged", subject: "g-purged", issuedAt: fixture.clock.now)).status == .accepted)
            #expect(try await !Self.isLive(client, tokens))
            #expect(try await RefreshRequest.post(client, tokens["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
            #expect(try await Self.isLive(client, other))
            let reason = try await fixture.pool.query("SELECT reason FROM account_deletions WHERE user_id = $1", [userID]).single?.decode(String.self, column: "reason")
            #expect(reason == "google account purged")
            #expect(try await fixture.count("users") == 1)
            #expect(try await fixture.count("identities WHERE subject = 'g-purged'") == 0)
            #expect(try await fixture.count("sessions WHERE user_id = '\(userID.uuidString)'") == 0)
            #expect(MetricsExposition.value(fixture.metrics, #"issuer_accounts_deletions_total{reason="google account purged"}"#) == 1)
            // The same Google account signing in later is a new user.
            let again = try await Self.signIn(client, google, subject: "g-purged")
            #expect(try AppleTestRig.userID(fixture, again) != userID)
        }
    }

    @Test("account-purged of an identity beside another: the Google identity is unlinked, the user and its sessions stay")
    func purgedWithAnotherIdentity() async throws {
        try await Self.withRISC { fixture, google, client in
            let tokens = try await Self.signIn(client, google, subject: "g-linked")
            let userID = try AppleTestRig.userID(fixture, tokens)
            try await fixture.pool.query(
                "INSERT INTO identities (provider, subject, user_id, audience) VALUES ('apple', '001.linked', $1, $2)",
                [userID, IssuerTestFixture.bundleID])
            fixture.clock.advance(by: 2)
            #expect(try await Self.post(client, try google.securityEventToken(type: "account-purged", subject: "g-linked", issuedAt: fixture.clock.now)).status == .accepted)
            #expect(try await fixture.count("identities WHERE provider = 'google'") == 0)
            #expect(try await fixture.count("identities WHERE provider = 'apple'") == 1)
            #expect(try await fixture.count("account_deletions") == 0)
            #expect(try await Self.isLive(client, tokens))
        }
    }

    @Test("verification (Google's test event), an unknown subject and an unknown event type: 202 and nothing changes")
    func nothingToDo() async throws {
        try await Self.withRISC { fixture, google, client in
            let tokens = try await Self.signIn(client, google, subject: "g-quiet")
            fixture.clock.advance(by: 2)
            let now = fixture.clock.now
            let verification = try google.securityEventToken(type: "verification", subject: nil, event: ["state": "operator check 42"], issuedAt: now)
            #expect(try await Self.post(client, verification).status == .accepted)
            let stranger = try google.securityEventToken(type: "account-purged", subject: "nobody-we-know", issuedAt: now)
            #expect(try await Self.post(client, stranger).status == .accepted)
            let unknown = try google.securityEventToken(type: "something-new", subject: "g-quiet", issuedAt: now)
            #expect(try await Self.post(client, unknown).status == .accepted)
            // A subject that names no Google account (another issuer) is nobody here.
            let elsewhere = try google.securityEventToken(
                type: "sessions-revoked", subject: nil,
                event: ["subject": ["subject_type": "iss-sub", "iss": "https://appleid.apple.com", "sub": "g-quiet"]], issuedAt: now)
            #expect(try await Self.post(client, elsewhere).status == .accepted)
            #expect(try await Self.isLive(client, tokens))
            #expect(try await fixture.count("users") == 1)
            #expect(try await fixture.count("sessions WHERE revoked_at IS NOT NULL") == 0)
            #expect(Self.metric(fixture, "verification") == 1)
            #expect(Self.metric(fixture, "other") == 1)
        }
    }

    @Test("a jti is applied once: the same jti again (even with another event) answers 202 and changes nothing")
    func replayedJTI() async throws {
        try await Self.withRISC { fixture, google, client in
            _ = try await Self.signIn(client, google, subject: "g-twice")
            fixture.clock.advance(by: 2)
            let jti = "jti-\(UUID().uuidString)"
            let disable = try google.securityEventToken(
                type: "account-disabled", subject: "g-twice", event: ["reason": "hijacking"], jti: jti, issuedAt: fixture.clock.now)
            #expect(try await Self.post(client, disable).status == .accepted)
            let revoked = try await fixture.count("sessions WHERE revoked_at IS NOT NULL")
            #expect(revoked == 1)
            fixture.clock.advance(by: 2)
            let enable = try google.securityEventToken(type: "account-enabled", subject: "g-twice", jti: jti, issuedAt: fixture.clock.now)
            #expect(try await Self.post(client, enable).status == .accepted)
            #expect(try await client.postJSON("/auth/google/exchange", ["id_token": try google.idToken(subject: "g-twice")]).status == .badRequest,
                    "the second token's event was not applied")
            // The very same token again: no second revocation of the session begun since.
            #expect(try await Self.post(client, disable).status == .accepted)
            #expect(try await fixture.count("received_events WHERE sender = 'google'") == 1)
            #expect(Self.metric(fixture, "duplicate") == 2)
            #expect(Self.metric(fixture, "account-disabled") == 1)
        }
    }

    @Test("refused with RFC 8935 §2.4 errors: 400 {err, description} naming what failed, and nothing changes")
    func refusals() async throws {
        try await Self.withRISC { fixture, google, client in
            let tokens = try await Self.signIn(client, google, subject: "g-target")
            fixture.clock.advance(by: 2)
            let now = fixture.clock.now
            func token(claims: [String: any Sendable] = [:], subject: String? = "g-target", issuedAt: Date = now,
                       key: RSAPrivateKey? = nil, header: [String: any Sendable]? = nil) throws -> String {
                try google.securityEventToken(
                    type: "account-purged", subject: subject, issuedAt: issuedAt, claims: claims, key: key, header: header)
            }
            let attacks: [(name: String, body: String, err: String)] = [
                ("wrong iss", try token(claims: ["iss": "https://attacker.example/"]), "invalid_issuer"),
                ("the ID tokens' iss, without the slash", try token(claims: ["iss": "https://accounts.google.com"]), "invalid_issuer"),
                ("wrong aud", try token(claims: ["aud": FakeGoogleServer.androidClientID]), "invalid_audience"),
                ("forged", try token(key: try RSAPrivateKey.generate()), "authentication_failed"),
                ("unknown kid", try token(header: ["alg": "RS256", "kid": "not-google"]), "invalid_key"),
                ("HS256", try token(header: ["alg": "HS256", "kid": google.keys.currentKid]), "invalid_key"),
                ("iat 8 days old", try token(issuedAt: now.addingTimeInterval(-8 * 24 * 3600)), "invalid_request"),
                ("iat in the future", try token(issuedAt: now.addingTimeInterval(120)), "invalid_request"),
                ("no jti", try token(claims: ["jti": NSNull()]), "invalid_request"),
                ("no subject", try token(subject: nil), "invalid_request"),
                ("not a JWT", "not-a-jwt", "invalid_request"),
                ("empty", "", "invalid_request"),
            ]
            for attack in attacks {
                let response = try await Self.post(client, attack.body)
                #expect(response.status == .badRequest, "\(attack.name)")
                #expect(response.headers[.contentType] == "application/json", "\(attack.name)")
                #expect(response.json["err"] as? String == attack.err, "\(attack.name): \(response.json)")
                #expect((response.json["description"] as? String)?.isEmpty == false, "\(attack.name)")
                #expect(response.json["error"] == nil, "\(attack.name): RFC 8935's shape, not RFC 6749's")
            }
            #expect(try await Self.isLive(client, tokens))
            #expect(try await fixture.count("identities WHERE subject = 'g-target'") == 1)
            #expect(try await fixture.count("received_events") == 0)
            #expect(Self.metric(fixture, "invalid") == Double(attacks.count))
        }
    }

    @Test("iat bounds: 60 s in the future and 6 days old are still accepted")
    func iatBounds() async throws {
        try await Self.withRISC { fixture, google, client in
            let now = fixture.clock.now
            for issued in [now.addingTimeInterval(50), now.addingTimeInterval(-6 * 24 * 3600)] {
                let response = try await Self.post(client, try google.securityEventToken(type: "verification", subject: nil, issuedAt: issued))
                #expect(response.status == .accepted, "\(response.json)")
            }
        }
    }

    @Test("Google's RISC keys unreachable with nothing cached: 503, so that Google delivers again; nothing changes; not rate limited; keys asked for again after a pause")
    func keysUnreachable() async throws {
        try await Self.withRISC(environment: ["ISSUER_RATE_LIMIT": "1/s burst 1"]) { fixture, google, client in
            let tokens = try await Self.signIn(client, google, subject: "g-nokeys")
            fixture.clock.advance(by: 2)
            let token = try google.securityEventToken(type: "account-purged", subject: "g-nokeys", issuedAt: fixture.clock.now)
            google.state.withLock { $0.riscFailing = true }
            for _ in 0..<3 {
                let response = try await Self.post(client, token)
                #expect(response.status == .serviceUnavailable)
                #expect(response.json["error"] as? String == "temporarily_unavailable")
            }
            #expect(try await fixture.count("identities WHERE subject = 'g-nokeys'") == 1)
            #expect(try await fixture.count("received_events") == 0)
            #expect(Self.metric(fixture, "unavailable") == 3)
            #expect(google.state.withLock { $0.riscJWKSFetches } == 1, "not asked again within the pause after a failure")
            google.state.withLock { $0.riscFailing = false }
            fixture.clock.advance(by: 1)
            #expect(try await Self.post(client, token).status == .accepted, "delivered again once Google is back")
            #expect(google.state.withLock { $0.riscJWKSFetches } == 2)
            #expect(try await !Self.isLive(client, tokens))
        }
    }

    @Test("the tokens are verified with the keys at risc_jwks_uri, fetched once for many; the body is read whatever its type; over 64 KiB is 413")
    func keysAndBody() async throws {
        try await Self.withRISC { fixture, google, client in
            for contentType in ["application/secevent+jwt", "text/plain", "application/jwt"] {
                let token = try google.securityEventToken(type: "verification", subject: nil, issuedAt: fixture.clock.now)
                #expect(try await Self.post(client, token + "\n", contentType: contentType).status == .accepted, "\(contentType)")
            }
            #expect(google.state.withLock { $0.riscJWKSFetches } == 1)
            let large = try await Self.post(client, String(repeating: "a", count: 64 * 1024 + 1))
            #expect(large.status == .contentTooLarge)
        }
    }

    @Test("without a provider of kind google the receiver is not served: 404")
    func notServedWithoutGoogle() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await Self.post(client, "x.y.z")
                #expect(response.status == .notFound)
            }
        }
        let file = try FakeGoogleServer.providersFile([[
            "id": "corp", "kind": "oidc", "issuer": "https://idp.example.com", "native_audiences": ["corp-app"],
        ]])
        defer { TestDirectories.remove(file) }
        try await withIssuer(environment: ["ISSUER_PROVIDERS_FILE": file.path]) { fixture in
            try await fixture.test { client in
                let response = try await Self.post(client, "x.y.z")
                #expect(response.status == .notFound)
            }
        }
    }

    @Test("the hosted flow refuses a disabled identity too: access_denied at the client, disabled by Google, no code")
    func hostedFlowRefusesDisabledIdentity() async throws {
        try await ProviderIssuer.withHostedOIDCProvider { fixture, provider, client in
            // The refusal is the sign-in statement's, for any provider: mark the identity as a
            // hijacking event would.
            try await fixture.pool.query("""
                INSERT INTO users (id) VALUES ('00000000-0000-4000-8000-00000000d15a');
                """)
            try await fixture.pool.query("""
                INSERT INTO identities (provider, subject, user_id, audience, disabled_at, disabled_reason)
                VALUES ('corp', 'corp-disabled', '00000000-0000-4000-8000-00000000d15a', 'issuer-at-corp', now(), 'hijacking')
                """)
            let authorize = try await client.get(HostedFlow.authorizeQuery())
            let request = HostedFlow.query(authorize.headers[.location])
            let code = provider.issueCode(subject: "corp-disabled", for: request)
            let back = try await client.get("/auth/corp/callback?code=\(RedirectURI.encode(code))&state=\(RedirectURI.encode(try #require(request["state"])))")
            #expect(back.status == .found)
            let answer = HostedFlow.query(back.headers[.location])
            #expect(answer["error"] == "access_denied")
            #expect(answer["error_description"]?.contains("disabled by Google") == true, "\(answer)")
            #expect(answer["code"] == nil)
            #expect(try await fixture.count("sessions") == 0)
        }
    }
}
