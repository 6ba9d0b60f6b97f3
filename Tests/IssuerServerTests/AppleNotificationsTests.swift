import Foundation
import HummingbirdTesting
import IssuerCore
import JOSE
import Testing
import TestSupport

@Suite("POST /auth/apple/notifications (reference: Apple notifications)", .timeLimit(.minutes(10)))
struct AppleNotificationsTests {
    enum Encoding: CaseIterable { case string, object }

    /// A notification as Apple signs it; `claims` overrides or (with NSNull) removes claims.
    static func notification(
        _ fixture: IssuerTestFixture, type: String, sub: String, encoding: Encoding = .string, jti: String = UUID().uuidString,
        eventTime: Date? = nil, claims: [String: any Sendable] = [:], key: RSAPrivateKey? = nil
    ) throws -> String {
        let now = fixture.clock.now
        var events: [String: Any] = ["type": type, "sub": sub, "event_time": Int((eventTime ?? now).timeIntervalSince1970 * 1000)]
        if type.hasPrefix("email") {
            events["email"] = "someone@privaterelay.appleid.com"
            events["is_private_email"] = "true"
        }
        var payload: [String: Any] = [
            "iss": "https://appleid.apple.com", "aud": IssuerTestFixture.bundleID, "iat": Int(now.timeIntervalSince1970),
            "jti": jti,
        ]
        switch encoding {
        case .string: payload["events"] = String(decoding: try JSONSerialization.data(withJSONObject: events), as: UTF8.self)
        case .object: payload["events"] = events
        }
        for (name, value) in claims {
            if value is NSNull { payload.removeValue(forKey: name) } else { payload[name] = value }
        }
        let (kid, appleKey) = fixture.apple.currentKey
        return try FakeAppleKeys.sign(
            payload: try JSONSerialization.data(withJSONObject: payload), header: ["alg": "RS256", "kid": kid], key: key ?? appleKey)
    }

    static func post(_ client: some TestClientProtocol, _ payload: String) async throws -> TestResponse {
        try await client.postJSON("/auth/apple/notifications", ["payload": payload])
    }

    static func forwarding(_ fixture: IssuerTestFixture, _ userID: UUID) async throws -> String? {
        try await fixture.pool.query("SELECT email_forwarding FROM users WHERE id = $1", [userID]).single?.decodeIfPresent(String.self, column: "email_forwarding")
    }

    @Test("email-disabled and email-enabled are recorded, in both events encodings; an older event never overwrites a newer one", arguments: Encoding.allCases)
    func emailForwarding(encoding: Encoding) async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture, subject: "notify.mail")
                let userID = try AppleTestRig.userID(fixture, tokens)
                let disabled = try await Self.post(client, try Self.notification(fixture, type: "email-disabled", sub: "notify.mail", encoding: encoding))
                #expect(disabled.status == .ok)
                #expect(try await Self.forwarding(fixture, userID) == "disabled")
                let late = try Self.notification(
                    fixture, type: "email-enabled", sub: "notify.mail", encoding: encoding, eventTime: fixture.clock.now.addingTimeInterval(-60))
                #expect(try await Self.post(client, late).status == .ok)
                #expect(try await Self.forwarding(fixture, userID) == "disabled", "an event older than the recorded one changes nothing")
                fixture.clock.advance(by: 1)
                #expect(try await Self.post(client, try Self.notification(fixture, type: "email-enabled", sub: "notify.mail", encoding: encoding)).status == .ok)
                #expect(try await Self.forwarding(fixture, userID) == "enabled")
                #expect(try await UserInfoRequest.send(client, tokens["access_token"] as? String).status == .ok, "sessions untouched")
            }
            #expect(MetricsExposition.value(fixture.metrics, #"issuer_apple_notifications_total{type="email-disabled"}"#) == 1)
            #expect(MetricsExposition.value(fixture.metrics, #"issuer_apple_notifications_total{type="email-enabled"}"#) == 2)
        }
    }

    @Test("consent-revoked signs the user out everywhere and drops the Apple token; the user stays and can sign in again")
    func consentRevoked() async throws {
        try await AppleTestRig.run { rig in
            let fixture = rig.fixture
            let (code, _) = rig.apple.issueCode(subject: "notify.consent")
            try await AppleTestRig.test(fixture) { client in
                let first = try await AppleTestRig.signIn(client, fixture, subject: "notify.consent", code: code)
                let second = try await AppleTestRig.signIn(client, fixture, subject: "notify.consent", code: nil)
                let userID = try AppleTestRig.userID(fixture, first)
                #expect(try await AppleTestRig.heldToken(fixture, userID: userID) != nil)

                let answer = try await Self.post(client, try Self.notification(fixture, type: "consent-revoked", sub: "notify.consent", encoding: .object))
                #expect(answer.status == .ok)
                for tokens in [first, second] {
                    #expect(try await RefreshRequest.post(client, tokens["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
                    #expect(try await UserInfoRequest.send(client, tokens["access_token"] as? String).status == .unauthorized)
                }
                #expect(try await AppleTestRig.heldToken(fixture, userID: userID) == nil)
                #expect(try await fixture.count("users") == 1)
                let again = try await AppleTestRig.signIn(client, fixture, subject: "notify.consent", code: nil)
                #expect(try AppleTestRig.userID(fixture, again) == userID, "the same user signs in again")
            }
            #expect(rig.apple.state.withLock { $0.revokeRequests }.isEmpty, "Apple ended the consent itself: nothing is sent")
        }
    }

    @Test("account-delete (and account-deleted) deletes the user as DELETE /account does, without calling Apple", arguments: ["account-delete", "account-deleted"])
    func accountDeleted(type: String) async throws {
        try await AppleTestRig.run { rig in
            let fixture = rig.fixture
            let (code, _) = rig.apple.issueCode(subject: "notify.gone")
            try await AppleTestRig.test(fixture) { client in
                let tokens = try await AppleTestRig.signIn(client, fixture, subject: "notify.gone", code: code)
                let other = try await AppleTestRig.signIn(client, fixture, subject: "notify.stays", code: nil)
                let userID = try AppleTestRig.userID(fixture, tokens)
                #expect(try await Self.post(client, try Self.notification(fixture, type: type, sub: "notify.gone")).status == .ok)
                #expect(try await UserInfoRequest.send(client, tokens["access_token"] as? String).status == .unauthorized)
                #expect(try await RefreshRequest.post(client, tokens["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
                #expect(try await UserInfoRequest.send(client, other["access_token"] as? String).status == .ok)
                let reason = try await fixture.pool.query("SELECT reason FROM account_deletions WHERE user_id = $1", [userID]).single?.decode(String.self, column: "reason")
                #expect(reason == "apple account deleted")
                #expect(try await fixture.count("apple_tokens") == 0)
                #expect(try await fixture.count("apple_revocations") == 0)
                #expect(try await fixture.count("identities WHERE subject = 'notify.gone'") == 0)
            }
            #expect(rig.apple.state.withLock { $0.revokeRequests }.isEmpty)
            #expect(MetricsExposition.value(fixture.metrics, #"issuer_accounts_deletions_total{reason="apple account deleted"}"#) == 1)
        }
    }

    @Test("forged, expired, wrong-audience, wrong-issuer, future and malformed payloads: 400 and nothing changes")
    func refused() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture, subject: "notify.attack")
                let now = Int(fixture.clock.now.timeIntervalSince1970)
                let attacks: [(String, String)] = [
                    ("forged", try Self.notification(fixture, type: "account-delete", sub: "notify.attack", key: try RSAPrivateKey.generate())),
                    ("expired", try Self.notification(fixture, type: "account-delete", sub: "notify.attack", claims: ["iat": now - 7200, "exp": now - 3600])),
                    ("wrong audience", try Self.notification(fixture, type: "account-delete", sub: "notify.attack", claims: ["aud": "com.attacker.app"])),
                    ("wrong issuer", try Self.notification(fixture, type: "account-delete", sub: "notify.attack", claims: ["iss": "https://attacker.example"])),
                    ("issued in the future", try Self.notification(fixture, type: "account-delete", sub: "notify.attack", claims: ["iat": now + 3600])),
                    ("no events", try Self.notification(fixture, type: "account-delete", sub: "notify.attack", claims: ["events": NSNull()])),
                    ("not a JWT", "not-a-jwt"),
                ]
                for (name, payload) in attacks {
                    let response = try await Self.post(client, payload)
                    #expect(response.status == .badRequest, "\(name)")
                    #expect(response.json["error"] as? String == "invalid_request", "\(name)")
                }
                #expect(try await client.postJSON("/auth/apple/notifications", [:]).status == .badRequest)
                #expect(try await UserInfoRequest.send(client, tokens["access_token"] as? String).status == .ok)
            }
            #expect(try await fixture.count("users") == 1)
            #expect(try await fixture.count("received_events WHERE sender = 'apple'") == 0)
            #expect(try await fixture.count("sessions WHERE revoked_at IS NOT NULL") == 0)
        }
    }

    @Test("Replay (Apple notifications: iat at most 7 days old): a payload issued 400 days ago, with no exp, is refused and changes nothing")
    func oldPayloadRefused() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture, subject: "notify.replay")
                let issued = fixture.clock.now.addingTimeInterval(-400 * 24 * 3600)
                let payload = try Self.notification(
                    fixture, type: "consent-revoked", sub: "notify.replay", eventTime: issued,
                    claims: ["iat": Int(issued.timeIntervalSince1970)])
                let answer = try await Self.post(client, payload)
                #expect(answer.status == .badRequest)
                #expect(answer.json["error"] as? String == "invalid_request")
                #expect(try await UserInfoRequest.send(client, tokens["access_token"] as? String).status == .ok)
            }
            #expect(try await fixture.count("received_events WHERE sender = 'apple'") == 0)
            #expect(try await fixture.count("sessions WHERE revoked_at IS NOT NULL") == 0)
        }
    }

    @Test("Replay (Apple notifications: iat at most 7 days old): a payload 6 days old still applies once; its event_time cannot reach past its iat")
    func eventTimeBoundedByIssue() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let issued = fixture.clock.now.addingTimeInterval(-6 * 24 * 3600)
                // event_time claims a moment after now: read as iat, so a session begun after the
                // payload was issued survives it.
                let payload = try Self.notification(
                    fixture, type: "consent-revoked", sub: "notify.later", eventTime: fixture.clock.now.addingTimeInterval(3600),
                    claims: ["iat": Int(issued.timeIntervalSince1970)])
                let tokens = try await NativeSignIn.tokens(client, fixture, subject: "notify.later")
                #expect(try await Self.post(client, payload).status == .ok)
                #expect(try await UserInfoRequest.send(client, tokens["access_token"] as? String).status == .ok)
            }
            #expect(try await fixture.count("received_events WHERE sender = 'apple'") == 1)
            #expect(try await fixture.count("sessions WHERE revoked_at IS NOT NULL") == 0)
        }
    }

    @Test("Apple notifications: an event_time of \"nan\", \"inf\" or a huge number is no time at all, never a crash: applied at iat", arguments: ["nan", "inf", "-1e300"])
    func absurdEventTime(eventTime: String) async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture, subject: "notify.nan")
                let userID = try AppleTestRig.userID(fixture, tokens)
                let now = Int(fixture.clock.now.timeIntervalSince1970)
                let events = #"{"type":"email-disabled","sub":"notify.nan","event_time":"\#(eventTime)"}"#
                let payload = try Self.notification(fixture, type: "email-disabled", sub: "notify.nan", claims: ["events": events, "iat": now])
                #expect(try await Self.post(client, payload).status == .ok)
                #expect(try await Self.forwarding(fixture, userID) == "disabled")
            }
        }
    }

    @Test("a duplicate jti is applied once; an unknown sub or type answers 200 and changes nothing")
    func idempotent() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture, subject: "notify.twice")
                let userID = try AppleTestRig.userID(fixture, tokens)
                let jti = "jti-\(UUID().uuidString)"
                #expect(try await Self.post(client, try Self.notification(fixture, type: "email-disabled", sub: "notify.twice", jti: jti)).status == .ok)
                fixture.clock.advance(by: 1)
                // Same jti, another event: Apple's redelivery is recognised by jti alone.
                #expect(try await Self.post(client, try Self.notification(fixture, type: "email-enabled", sub: "notify.twice", jti: jti)).status == .ok)
                #expect(try await Self.forwarding(fixture, userID) == "disabled")
                #expect(try await Self.post(client, try Self.notification(fixture, type: "consent-revoked", sub: "nobody.we.know")).status == .ok)
                #expect(try await Self.post(client, try Self.notification(fixture, type: "something-new", sub: "notify.twice")).status == .ok)
                #expect(try await UserInfoRequest.send(client, tokens["access_token"] as? String).status == .ok)
            }
            #expect(MetricsExposition.value(fixture.metrics, #"issuer_apple_notifications_total{type="duplicate"}"#) == 1)
            #expect(MetricsExposition.value(fixture.metrics, #"issuer_apple_notifications_total{type="other"}"#) == 1)
        }
    }

    @Test("Apple's keys unreachable with nothing cached: 503, so that Apple retries; nothing changes; not rate limited")
    func keysUnreachable() async throws {
        try await withIssuer(environment: ["ISSUER_RATE_LIMIT": "1/s burst 1"]) { fixture in
            let payload = try Self.notification(fixture, type: "account-delete", sub: "notify.nokeys")
            fixture.appleFetcher.setFailing(true)
            try await fixture.test { client in
                for _ in 0..<3 {
                    let response = try await Self.post(client, payload)
                    #expect(response.status == .serviceUnavailable)
                    #expect(response.json["error"] as? String == "temporarily_unavailable")
                }
            }
            #expect(try await fixture.count("received_events WHERE sender = 'apple'") == 0)
            #expect(MetricsExposition.value(fixture.metrics, #"issuer_apple_notifications_total{type="unavailable"}"#) == 3)
        }
    }
}
