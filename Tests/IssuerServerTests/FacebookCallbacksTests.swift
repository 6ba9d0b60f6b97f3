import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import JOSE
import Testing
import TestSupport

/// Facebook's deauthorize and data-deletion callbacks (reference: Facebook's callbacks): the
/// `signed_request` checked with the app secret, each applied once through the security-event
/// pipeline, and the data deletion's confirmation and status page.
@Suite("Facebook: deauthorize and data-deletion callbacks", .serialized, .timeLimit(.minutes(10)))
struct FacebookCallbacksTests {
    /// Facebook's `signed_request`, computed here independently of the issuer's code.
    static func signedRequest(
        userID: String, issuedAt: Date, secret: String = FakeFacebookServer.appSecret, algorithm: String = "HMAC-SHA256",
        extra: [String: String] = [:]
    ) throws -> String {
        var claims: [String: Any] = ["algorithm": algorithm, "issued_at": Int(issuedAt.timeIntervalSince1970), "user_id": userID]
        for (name, value) in extra { claims[name] = value }
        let payload = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Base64URL.encode(Data(mac)) + "." + payload
    }

    /// An Apple user who linked Facebook and signed in with each: the two sessions' tokens.
    static func linkedUser(
        _ fixture: IssuerTestFixture, _ facebook: FakeFacebookServer, _ client: some TestClientProtocol, subject: String
    ) async throws -> (apple: [String: Any], facebook: [String: Any]) {
        let apple = try await AppleTestRig.signIn(client, fixture, subject: "apple-" + subject, code: nil)
        let link = try await client.executeRequest(
            uri: "/account/identities", method: .post,
            headers: [.authorization: "Bearer \(apple["access_token"] as! String)", .contentType: "application/json"],
            body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: [
                "provider": "facebook", "id_token": try facebook.limitedLoginToken(subject: subject), "nonce": "raw-nonce",
                "refresh_token": apple["refresh_token"] as! String,
            ])))
        #expect(link.status == .ok, "\(link.json)")
        let signedIn = try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: subject)])
        #expect(try AppleTestRig.userID(fixture, signedIn.json) == AppleTestRig.userID(fixture, apple))
        return (apple, signedIn.json)
    }

    static func refreshes(_ client: some TestClientProtocol, _ tokens: [String: Any]) async throws -> Bool {
        try await RefreshRequest.post(client, tokens["refresh_token"] as! String).status == .ok
    }

    static func outcomes(_ fixture: IssuerTestFixture, _ callback: String, _ outcome: String) -> Double? {
        MetricsExposition.value(fixture.metrics, "issuer_provider_callbacks_total", labels: [
            #"provider="facebook""#, #"callback="\#(callback)""#, #"outcome="\#(outcome)""#,
        ])
    }

    @Test("deauthorize revokes the sessions begun through Facebook before issued_at, not Apple's; the identity stays; a redelivery changes nothing")
    func deauthorize() async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, logs in
            let user = try await Self.linkedUser(fixture, facebook, client, subject: "fb-deauth")
            fixture.clock.advance(by: 2)
            let request = try Self.signedRequest(userID: "fb-deauth", issuedAt: fixture.clock.now)
            let answer = try await client.postForm("/auth/facebook/deauthorize", [("signed_request", request)])
            #expect(answer.status == .ok)
            #expect(answer.json.isEmpty)
            #expect(try await RefreshRequest.post(client, user.facebook["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
            #expect(try await Self.refreshes(client, user.apple), "Apple's session is not Facebook's to end")
            #expect(try await fixture.count("identities") == 2, "the identity stays")
            let again = try await client.postForm("/auth/facebook/deauthorize", [("signed_request", request)])
            #expect(again.status == .ok)
            // Signing in again works: a sign-in after the removal is a new authorization.
            let back = try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: "fb-deauth")])
            #expect(back.status == .ok)
            #expect(Self.outcomes(fixture, "deauthorize", "applied") == 1)
            #expect(Self.outcomes(fixture, "deauthorize", "duplicate") == 1)
            let userID = try AppleTestRig.userID(fixture, user.apple).uuidString.lowercased()
            #expect(logs().contains { $0.contains("provider callback") && $0.contains(userID) }, "logged with our user id")
            #expect(!logs().contains { $0.contains("fb-deauth") }, "never Facebook's id")
        }
    }

    @Test("a signed_request missing, signed with another secret, of another algorithm, older than 7 days, over 60 s ahead, or malformed: 400 invalid_request, nothing changes",
          arguments: ["missing", "secret", "algorithm", "old", "future", "malformed", "login"])
    func refused(_ kind: String) async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, _ in
            let tokens = try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: "fb-refused")]).json
            let now = fixture.clock.now
            let fields: [(String, String)] = switch kind {
            case "missing": []
            case "secret": [("signed_request", try Self.signedRequest(userID: "fb-refused", issuedAt: now, secret: "not-the-secret"))]
            case "algorithm": [("signed_request", try Self.signedRequest(userID: "fb-refused", issuedAt: now, algorithm: "HMAC-SHA1"))]
            case "old": [("signed_request", try Self.signedRequest(userID: "fb-refused", issuedAt: now.addingTimeInterval(-8 * 86_400)))]
            case "future": [("signed_request", try Self.signedRequest(userID: "fb-refused", issuedAt: now.addingTimeInterval(120)))]
            // The Login SDK's signed request, as a web page's cookie holds it: same shape, with the login's code.
            case "login": [("signed_request", try Self.signedRequest(userID: "fb-refused", issuedAt: now, extra: ["code": "AQD-login-code"]))]
            default: [("signed_request", "not.a.signed-request")]
            }
            for path in ["/auth/facebook/deauthorize", "/auth/facebook/data-deletion"] {
                let answer = try await client.postForm(path, fields)
                #expect(answer.status == .badRequest, "\(path)")
                #expect(answer.json["error"] as? String == "invalid_request", "\(path)")
            }
            #expect(try await Self.refreshes(client, tokens))
            #expect(try await fixture.count("identities") == 1)
            #expect(try await fixture.count("data_deletion_requests") == 0)
            #expect(Self.outcomes(fixture, "deauthorize", "invalid") == 1)
        }
    }

    @Test("data deletion of a Facebook-only user deletes the user as account deletion does; the same request gets the same code; the status page says so and names nobody")
    func dataDeletionDeletesTheUser() async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, _ in
            let tokens = try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: "fb-delete")]).json
            let userID = try AppleTestRig.userID(fixture, tokens)
            let request = try Self.signedRequest(userID: "fb-delete", issuedAt: fixture.clock.now)
            let answer = try await client.postForm("/auth/facebook/data-deletion", [("signed_request", request)])
            #expect(answer.status == .ok, "\(answer.json)")
            let code = try #require(answer.json["confirmation_code"] as? String)
            #expect((16...32).contains(code.count) && code.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
            let url = try #require(answer.json["url"] as? String)
            #expect(url == fixture.configuration.issuerURL.absoluteString + "/auth/facebook/data-deletion?code=" + code)
            #expect(try await fixture.count("users") == 0)
            let reason = try await fixture.pool.query("SELECT reason FROM account_deletions WHERE user_id = $1", [userID]).single?
                .decode(String.self, column: "reason")
            #expect(reason == "provider data deletion")
            #expect(try await RefreshRequest.post(client, tokens["refresh_token"] as! String).json["error"] as? String == "invalid_grant")

            let again = try await client.postForm("/auth/facebook/data-deletion", [("signed_request", request)])
            #expect(again.json["confirmation_code"] as? String == code && again.json["url"] as? String == url)
            // The same request with its signature padded is the same delivery, with the same code.
            let parts = request.split(separator: ".")
            let padded = try await client.postForm("/auth/facebook/data-deletion", [("signed_request", parts[0] + "=." + parts[1])])
            #expect(padded.json["confirmation_code"] as? String == code)
            #expect(try await fixture.count("data_deletion_requests") == 1)

            let page = try await client.get("/auth/facebook/data-deletion?code=" + code)
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(html.contains("Data deletion request") && html.contains("has been deleted"))
            #expect(!html.contains("fb-delete") && !html.contains(userID.uuidString.lowercased()), "nothing personal")
            #expect(page.headers[.contentSecurityPolicy] != nil, "the pages' headers")
            let unknown = try await client.get("/auth/facebook/data-deletion?code=" + String(repeating: "0", count: 32))
            #expect(unknown.status == .notFound)
            #expect(String(buffer: unknown.body).contains("No data deletion request"))
            #expect(Self.outcomes(fixture, "data_deletion", "applied") == 1)
            #expect(MetricsExposition.value(fixture.metrics, "issuer_accounts_deletions_total", labels: [#"reason="provider data deletion""#]) == 1)
        }
    }

    @Test("data deletion of a linked user removes only the Facebook identity and its sessions; an unknown user_id still gets a code")
    func dataDeletionOfALinkedUser() async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, _ in
            let user = try await Self.linkedUser(fixture, facebook, client, subject: "fb-linked")
            let answer = try await client.postForm("/auth/facebook/data-deletion", [
                ("signed_request", try Self.signedRequest(userID: "fb-linked", issuedAt: fixture.clock.now)),
            ])
            #expect(answer.status == .ok)
            #expect(try await fixture.count("users") == 1)
            // What came from Facebook leaves the profile: its name, and its e-mail for Apple's.
            let profile = try #require(try await fixture.pool.query("SELECT email, given_name, family_name FROM users").single)
            #expect(try profile.decodeIfPresent(String.self, column: "given_name") == nil)
            #expect(try profile.decodeIfPresent(String.self, column: "family_name") == nil)
            #expect(try profile.decodeIfPresent(String.self, column: "email") != "ada@example.com")
            #expect(try await fixture.pool.query("SELECT provider FROM identities").rows.count == 1)
            #expect(try await fixture.count("identities") == 1, "Apple's identity stays")
            #expect(try await RefreshRequest.post(client, user.facebook["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
            #expect(try await Self.refreshes(client, user.apple))

            let nobody = try await client.postForm("/auth/facebook/data-deletion", [
                ("signed_request", try Self.signedRequest(userID: "fb-never-seen", issuedAt: fixture.clock.now)),
            ])
            #expect(nobody.status == .ok)
            #expect(nobody.json["confirmation_code"] as? String != answer.json["confirmation_code"] as? String)
            #expect(Self.outcomes(fixture, "data_deletion", "nothing_to_do") == 1)
        }
    }

    @Test("deauthorize in the same whole second as a sign-in still ends it: issued_at counts to the end of its second")
    func deauthorizeWithinTheSecond() async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, _ in
            // The sign-in at .5 of a second; Facebook's issued_at is that whole second.
            let now = fixture.clock.now.timeIntervalSince1970
            fixture.clock.advance(by: now.rounded(.down) + 1.5 - now)
            let tokens = try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: "fb-same-second")]).json
            let request = try Self.signedRequest(userID: "fb-same-second", issuedAt: fixture.clock.now)
            #expect(try await client.postForm("/auth/facebook/deauthorize", [("signed_request", request)]).status == .ok)
            #expect(try await RefreshRequest.post(client, tokens["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
        }
    }
}
